//! The general entities a document's own internal DTD declares (decision M35).
//!
//! `<!DOCTYPE ChatMapperProject [<!ENTITY hero "Mara">]>` lets the document write `&hero;` in text
//! and attributes. Only internal entities with plain replacement text are read: a value holding
//! markup (`<`) is refused, an external entity (`SYSTEM`, `PUBLIC`) is never fetched and its use
//! is refused, and parameter entities, element and attribute declarations are skipped. References
//! inside a value are expanded when it is used, at most [`MAX_NESTING`] deep (an entity that
//! refers to itself is refused); one entity expands to at most [`MAX_ENTITY_BYTES`], and all the
//! entities of a document together to at most [`MAX_DOCUMENT_BYTES`], so an exponential
//! expansion ("billion laughs") is an error that says so rather than a hang.

use std::collections::HashMap;

/// How deep entity references may nest inside replacement text.
pub(crate) const MAX_NESTING: usize = 16;
/// The most one entity may expand to.
pub(crate) const MAX_ENTITY_BYTES: usize = 1 << 20;
/// The most all entity expansions of one document may come to (declarations expanded and every
/// use counted).
pub(crate) const MAX_DOCUMENT_BYTES: usize = 8 << 20;

/// A declared entity, as written.
#[derive(Debug, Clone)]
enum Declared {
    /// Internal: the literal value between its quotes.
    Internal(String),
    /// External (`SYSTEM` or `PUBLIC`): never read.
    External,
}

/// The internal DTD's general entities, and what expanding them has cost so far.
#[derive(Debug, Default)]
pub(crate) struct Entities {
    declared: HashMap<String, Declared>,
    expanded: HashMap<String, String>,
    spent: usize,
}

impl Entities {
    /// Reads the entity declarations of a `<!DOCTYPE …>`'s content (what follows `<!DOCTYPE`).
    /// The first declaration of a name binds, as XML says.
    pub(crate) fn read(doctype: &str) -> Entities {
        let mut entities = Entities::default();
        let Some(open) = outside_quotes(doctype, 0, '[') else { return entities };
        let subset = &doctype[open + 1..];
        let mut at = 0;
        while at < subset.len() {
            let rest = &subset[at..];
            if rest.starts_with("<!--") {
                at += rest.find("-->").map_or(rest.len(), |end| end + 3);
            } else if rest.starts_with("<?") {
                at += rest.find("?>").map_or(rest.len(), |end| end + 2);
            } else if let Some(declaration) = rest.strip_prefix("<!ENTITY") {
                let end = outside_quotes(declaration, 0, '>').unwrap_or(declaration.len());
                if let Some((name, entity)) = entity(&declaration[..end]) {
                    entities.declared.entry(name).or_insert(entity);
                }
                at += "<!ENTITY".len() + end + 1;
            } else if rest.starts_with("<!") {
                at += outside_quotes(rest, 0, '>').map_or(rest.len(), |end| end + 1);
            } else if rest.starts_with(']') {
                break;
            } else {
                at += rest.chars().next().map_or(1, char::len_utf8);
            }
        }
        entities
    }

    /// Whether the DTD declares `name`.
    pub(crate) fn declares(&self, name: &str) -> bool {
        self.declared.contains_key(name)
    }

    /// The replacement text of `&name;` for a use of it, `None` when the DTD does not declare it,
    /// or why it cannot be used.
    pub(crate) fn resolve(&mut self, name: &str) -> Option<Result<String, String>> {
        if !self.declares(name) {
            return None;
        }
        Some(self.expand(name, &mut Vec::new()).and_then(|text| {
            self.charge(name, text.len())?;
            Ok(text)
        }))
    }

    /// Counts `bytes` of expansion against the document's allowance.
    fn charge(&mut self, name: &str, bytes: usize) -> Result<(), String> {
        self.spent = self.spent.saturating_add(bytes);
        if self.spent > MAX_DOCUMENT_BYTES {
            return Err(format!(
                "the entities declared in the document's DTD expand to more than {} MiB in all (at &{name};), so \
                 the document is refused: this is how an entity expansion attack (\"billion laughs\") looks",
                MAX_DOCUMENT_BYTES >> 20
            ));
        }
        Ok(())
    }

    /// The full replacement text of a declared entity (memoised), `within` the entities whose
    /// expansion is under way.
    fn expand(&mut self, name: &str, within: &mut Vec<String>) -> Result<String, String> {
        if let Some(text) = self.expanded.get(name) {
            return Ok(text.clone());
        }
        let value = match self.declared.get(name) {
            Some(Declared::Internal(value)) => value.clone(),
            Some(Declared::External) => {
                return Err(format!(
                    "&{name}; is an external entity (SYSTEM or PUBLIC) of the document's DTD, and external \
                     entities are never read: declare it with its text, <!ENTITY {name} \"…\">"
                ))
            }
            None => return Err(crate::entities::undefined(name)),
        };
        if within.iter().any(|n| n == name) {
            return Err(format!(
                "the entity &{name}; refers to itself (through {}), so it has no text",
                within.join(", ")
            ));
        }
        if within.len() >= MAX_NESTING {
            return Err(format!("entity references nest more than {MAX_NESTING} deep at &{name};"));
        }
        if value.contains('<') {
            return Err(format!(
                "the entity &{name}; holds markup (<), and only entities of plain text are read: write &lt; for \
                 the character"
            ));
        }
        within.push(name.to_owned());
        let mut text = String::new();
        let mut rest = value.as_str();
        while let Some(amp) = rest.find('&') {
            text.push_str(&rest[..amp]);
            let after = &rest[amp + 1..];
            let Some(end) = after.find(';') else {
                return Err(format!("the entity &{name}; holds an & that begins no reference: write &amp;"));
            };
            let reference = &after[..end];
            match character(reference) {
                Some(Ok(c)) => text.push(c),
                Some(Err(e)) => return Err(format!("the entity &{name}; holds &{reference};, {e}")),
                None => text.push_str(&self.expand(reference, within)?),
            }
            if text.len() > MAX_ENTITY_BYTES {
                return Err(format!(
                    "the entity &{name}; expands to more than {} MiB, so the document is refused: this is how an \
                     entity expansion attack (\"billion laughs\") looks",
                    MAX_ENTITY_BYTES >> 20
                ));
            }
            rest = &after[end + 1..];
        }
        text.push_str(rest);
        within.pop();
        self.charge(name, text.len())?;
        self.expanded.insert(name.to_owned(), text.clone());
        Ok(text)
    }
}

/// A character reference (`#233`, `#xE9`) or one of XML's five entities as its character;
/// `None` for any other name.
pub(crate) fn character(reference: &str) -> Option<Result<char, String>> {
    if let Some(number) = reference.strip_prefix('#') {
        let code = match number.strip_prefix('x') {
            Some(hex) => u32::from_str_radix(hex, 16),
            None => number.parse(),
        };
        let c = code.ok().and_then(char::from_u32).filter(|&c| c != '\0');
        return Some(c.ok_or_else(|| "which is not a character".to_owned()));
    }
    quick_xml::escape::resolve_xml_entity(reference).and_then(|s| s.chars().next()).map(Ok)
}

/// The first `wanted` in `text` from `from` that is not inside a quoted literal.
fn outside_quotes(text: &str, from: usize, wanted: char) -> Option<usize> {
    let mut quote = None;
    for (i, c) in text[from..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c == wanted => return Some(from + i),
            _ => {}
        }
    }
    None
}

/// One `<!ENTITY …>` declaration's inside: a general entity's name and what it is; `None` for a
/// parameter entity (`%`) or a declaration that cannot be read.
fn entity(inside: &str) -> Option<(String, Declared)> {
    let inside = inside.trim_start();
    if inside.starts_with('%') {
        return None;
    }
    let name_end = inside.find(char::is_whitespace)?;
    let (name, rest) = (&inside[..name_end], inside[name_end..].trim_start());
    let quote = rest.chars().next()?;
    if quote == '"' || quote == '\'' {
        let value = &rest[1..];
        let end = value.find(quote)?;
        return Some((name.to_owned(), Declared::Internal(value[..end].to_owned())));
    }
    (rest.starts_with("SYSTEM") || rest.starts_with("PUBLIC")).then(|| (name.to_owned(), Declared::External))
}

impl Entities {
    /// Whether the DTD declares no general entity (an attribute is then read by quick-xml's own
    /// normalisation).
    pub(crate) fn is_empty(&self) -> bool {
        self.declared.is_empty()
    }

    /// An attribute's raw value normalised as XML 1.0 says (line ends and tabs are spaces, also
    /// inside an entity's text; a character reference is its character as written), its
    /// references resolved with the DTD's entities.
    pub(crate) fn attribute(&mut self, raw: &str) -> Result<String, String> {
        let space = |c: char| if matches!(c, '\t' | '\n' | '\r') { ' ' } else { c };
        let mut value = String::with_capacity(raw.len());
        let lines = raw.replace("\r\n", "\n");
        let mut tail = lines.as_str();
        while let Some(amp) = tail.find('&') {
            value.extend(tail[..amp].chars().map(space));
            let after = &tail[amp + 1..];
            let end =
                after.find(';').ok_or_else(|| "an & in an attribute begins no reference: write &amp;".to_owned())?;
            let reference = &after[..end];
            match character(reference) {
                Some(Ok(c)) => value.push(c),
                Some(Err(e)) => return Err(format!("&{reference}; in an attribute, {e}")),
                None => match self.resolve(reference) {
                    Some(text) => value.extend(text?.chars().map(space)),
                    None => return Err(crate::entities::undefined(reference)),
                },
            }
            tail = &after[end + 1..];
        }
        value.extend(tail.chars().map(space));
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use crate::xml::read_xml;

    /// A project whose DTD's internal subset is `subset`, with `title` as its Title attribute
    /// and `text` as its one entry's Dialogue Text.
    fn project(subset: &str, title: &str, text: &str) -> Result<crate::Project, crate::LoadError> {
        let document = format!(
            "<?xml version=\"1.0\"?>\n<!DOCTYPE ChatMapperProject [{subset}]>\n<ChatMapperProject Title=\"{title}\">\
             <Assets><Conversations><Conversation ID=\"1\"><DialogEntries><DialogEntry ID=\"0\" IsRoot=\"true\">\
             <Fields><Field Type=\"Text\"><Title>Dialogue Text</Title><Value>{text}</Value></Field></Fields>\
             </DialogEntry></DialogEntries></Conversation></Conversations></Assets></ChatMapperProject>"
        );
        read_xml(document.as_bytes(), "t.xml")
    }

    fn said(project: &crate::Project) -> &str {
        project.conversations[0].entries[0].dialogue_text()
    }

    #[test]
    fn internal_entities_are_read_in_text_and_attributes() {
        let subset = "<!-- names --><!ENTITY hero \"Mara\"><!ENTITY greet 'Hello, &hero; &amp; co&#33;'>\
                      <!ELEMENT x (#PCDATA)><!ATTLIST x a CDATA \"&gt;\"><!ENTITY % p \"ignored\">\
                      <!ENTITY hero \"not the first\"><!ENTITY spaced \"a\tb\">";
        let read = project(subset, "The tale of &hero;&#10;&spaced;", "&greet; [&hero;] &lt;3").unwrap();
        assert_eq!(said(&read), "Hello, Mara & co! [Mara] <3");
        assert_eq!(read.title, "The tale of Mara\na b");
    }

    #[test]
    fn an_undeclared_entity_is_still_the_placed_error_of_m26() {
        let error = project("<!ENTITY hero \"Mara\">", "t", "&hero; &nbsp;").unwrap_err();
        assert!(error.to_string().contains("&nbsp;") && error.to_string().contains("&#160;"), "{error}");
        let error = project("<!ENTITY hero \"Mara\">", "&hero;&eacute;", "x").unwrap_err();
        assert_eq!(error.position(), Some((3, 33)), "{error}");
    }

    #[test]
    fn billion_laughs_is_refused_with_a_clear_message() {
        let mut subset = String::from("<!ENTITY lol0 \"lol\">");
        for n in 1..10 {
            let previous = format!("&lol{};", n - 1).repeat(10);
            subset.push_str(&format!("<!ENTITY lol{n} \"{previous}\">"));
        }
        let error = project(&subset, "t", "&lol9;").unwrap_err().to_string();
        assert!(error.contains("expands to more than 1 MiB") && error.contains("billion laughs"), "{error}");
        // Many uses of one large entity are bounded in all.
        let big = "x".repeat(900_000);
        let error = project(&format!("<!ENTITY big \"{big}\">"), "t", &"&big;".repeat(20)).unwrap_err().to_string();
        assert!(error.contains("more than 8 MiB in all"), "{error}");
    }

    #[test]
    fn external_recursive_and_markup_entities_are_refused() {
        let error = project("<!ENTITY ext SYSTEM \"file:///etc/passwd\">", "t", "&ext;").unwrap_err().to_string();
        assert!(error.contains("external entity") && error.contains("never read"), "{error}");
        let error = project("<!ENTITY a \"x&b;\"><!ENTITY b \"&a;\">", "t", "&a;").unwrap_err().to_string();
        assert!(error.contains("refers to itself"), "{error}");
        let error = project("<!ENTITY m \"<b>x</b>\">", "t", "&m;").unwrap_err().to_string();
        assert!(error.contains("markup"), "{error}");
        // An escaped < is a character of the text, as in any text.
        assert_eq!(said(&project("<!ENTITY m \"&lt;b>x\">", "t", "&m;").unwrap()), "<b>x");
        // Declared but never used: nothing is refused.
        assert!(project("<!ENTITY ext SYSTEM \"x\"><!ENTITY a \"&a;\">", "t", "plain").is_ok());
    }
}
