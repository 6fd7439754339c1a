//! Entity references the XML export cannot hold (decision M26).
//!
//! XML defines five named entities (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`) and numeric
//! references; any other name is a well-formedness error unless a DTD declares it. ChatMapper
//! writes its exports with a .NET `XmlSerializer`, which escapes a literal `&` as `&amp;` and
//! writes no DTD, so an export it wrote never holds `&nbsp;`: text copied from HTML reads back as
//! the literal `&nbsp;` it was. A file that does hold one was edited by hand or written by another
//! tool, and guessing what it meant would read one file two ways; the reader stops there with an
//! error that names the reference, places it and says what to write instead.

use quick_xml::events::BytesStart;

/// The code points of the HTML entities most often found in hand-edited dialogue, for the hint.
const COMMON: [(&str, u32); 24] = [
    ("nbsp", 160),
    ("iexcl", 161),
    ("copy", 169),
    ("laquo", 171),
    ("reg", 174),
    ("deg", 176),
    ("raquo", 187),
    ("iquest", 191),
    ("agrave", 224),
    ("aacute", 225),
    ("ccedil", 231),
    ("egrave", 232),
    ("eacute", 233),
    ("ntilde", 241),
    ("ouml", 246),
    ("uuml", 252),
    ("ndash", 8211),
    ("mdash", 8212),
    ("lsquo", 8216),
    ("rsquo", 8217),
    ("ldquo", 8220),
    ("rdquo", 8221),
    ("hellip", 8230),
    ("trade", 8482),
];

/// What is wrong with `&name;` and what to write instead.
pub(crate) fn undefined(name: &str) -> String {
    let character = match COMMON.iter().find(|(known, _)| *known == name) {
        Some((_, code)) => format!("&#{code};"),
        None => "a numeric reference such as &#160;".to_owned(),
    };
    format!(
        "&{name}; is not defined in XML (only &amp;, &lt;, &gt;, &quot;, &apos; and numeric references are), and \
         ChatMapper's own exports write a literal & as &amp;: write {character} for the character, or &amp;{name}; \
         to keep the text as it reads"
    )
}

/// The first undefined entity reference in a start tag's attributes, placed in the text: the
/// tag begins with `<` at `offset`; `declared` says which names the document's DTD declares.
/// `None` when the tag holds none (the caller keeps its error).
pub(crate) fn in_tag(
    start: &BytesStart<'_>,
    offset: usize,
    declared: &dyn Fn(&str) -> bool,
) -> Option<(usize, String)> {
    let raw: &[u8] = start;
    let mut from = 0;
    while let Some(at) = raw[from..].iter().position(|&b| b == b'&').map(|i| from + i) {
        let rest = &raw[at + 1..];
        let end = rest.iter().position(|&b| b == b';')?;
        let name = String::from_utf8_lossy(&rest[..end]);
        if !name.starts_with('#') && quick_xml::escape::resolve_xml_entity(&name).is_none() && !declared(&name) {
            return Some((offset + 1 + at, undefined(&name)));
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::error::LoadError;
    use crate::xml::read_xml;

    fn dialogue(value: &str) -> String {
        format!(
            "<ChatMapperProject Title=\"T\">\n<Assets><Conversations><Conversation ID=\"1\"><DialogEntries>\n\
             <DialogEntry ID=\"0\" IsRoot=\"true\"><Fields><Field Type=\"Text\"><Title>Dialogue Text</Title>\
             <Value>{value}</Value></Field></Fields></DialogEntry>\n\
             </DialogEntries></Conversation></Conversations></Assets></ChatMapperProject>"
        )
    }

    fn error(text: &str) -> LoadError {
        read_xml(text.as_bytes(), "t.xml").unwrap_err()
    }

    #[test]
    fn an_undefined_entity_in_text_is_a_placed_error_that_says_what_to_write() {
        // XML defines five named entities; ChatMapper's exports (a .NET XmlSerializer) write a
        // literal `&` as `&amp;`, so `&nbsp;` is not well-formed and no real export holds it
        // (decision M26). The error names it, places it and says what to write instead.
        let error = error(&dialogue("Hello&nbsp;there"));
        assert_eq!(error.position(), Some((3, 102)), "{error}");
        let message = error.to_string();
        for words in ["&nbsp;", "not defined in XML", "&#160;", "&amp;nbsp;"] {
            assert!(message.contains(words), "{words:?} is missing from: {message}");
        }
    }

    #[test]
    fn an_undefined_entity_in_an_attribute_is_placed_at_the_entity() {
        let error = error("<ChatMapperProject\n  Title=\"a&eacute;b\"/>");
        assert_eq!(error.position(), Some((2, 11)), "{error}");
        assert!(error.to_string().contains("&eacute;"), "{error}");
        assert!(error.to_string().contains("&#233;"), "{error}");
    }

    #[test]
    fn defined_entities_and_escaped_html_read_as_text() {
        let text = dialogue("caf&#233; &amp;nbsp; &lt;b&gt; &#xA0;&quot;&apos;");
        let project = read_xml(text.as_bytes(), "t.xml").unwrap();
        assert_eq!(project.conversations[0].entries[0].dialogue_text(), "caf\u{e9} &nbsp; <b> \u{a0}\"'");
    }
}
