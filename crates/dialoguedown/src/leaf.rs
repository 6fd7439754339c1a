//! Leaf grammars: pure text-to-data parsers for what Markdown leaves as plain text or code —
//! tags, speaker prefixes, game calls, conditions, weights, control markers, and the `=>`
//! arrow. None of them builds a node or reports a diagnostic: the builders do that. What they
//! find is borrowed from the text they were given.

use std::ops::Range;

use stagehand_playbook::CompactString;

use crate::ast::WeightSyntax;

/// A parsed tag: `#name`, `#name=value`, `##name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TagData<'t> {
    pub name: &'t str,
    pub value: Option<&'t str>,
    pub reserved: bool,
}

/// What a code span's content is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CodeKind<'t> {
    /// `"key"`: a value read.
    Query(&'t str),
    /// `("action")`
    DefaultCommand(&'t str),
    /// `Name("a", "b")`
    CustomCommand(&'t str, Vec<CompactString>),
    /// `key?`
    Condition(&'t str),
    /// `50%`, `%`, `key%`
    Weight(WeightSyntax),
    /// `if`, `elseif`, `else`
    Marker(Marker),
    /// Anything else.
    Invalid,
}

/// A control-block marker keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    If,
    ElseIf,
    Else,
}

impl Marker {
    pub fn as_str(self) -> &'static str {
        match self {
            Marker::If => "if",
            Marker::ElseIf => "elseif",
            Marker::Else => "else",
        }
    }
}

/// A parsed speaker prefix: everything up to and including the colon. The name and id are
/// borrowed from the text, so a line that only looks like it might open with a prefix costs
/// no allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PrefixData<'t> {
    pub name: Option<&'t str>,
    pub id: Option<&'t str>,
    pub tags: Vec<(TagData<'t>, Range<usize>)>,
    /// Bytes consumed, through the colon.
    pub consumed: usize,
    /// Where the name and id end (before the tags), relative to the text.
    pub head_end: usize,
}

/// One piece of a text run: words, a tag, or an arrow.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Leaf<'t> {
    Text(&'t str, Range<usize>),
    Tag(TagData<'t>, Range<usize>),
    Arrow(Range<usize>),
}

/// Whether a character may stand in an identifier after its first (C36): a letter, a digit
/// or `_`; a hyphen or a dot ends it.
fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a byte is ASCII whitespace as `char::is_whitespace` sees it (which, unlike
/// `u8::is_ascii_whitespace`, counts the vertical tab).
fn is_ascii_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\x0B' | b'\x0C' | b'\r')
}

/// `text.trim_start()`, with ASCII whitespace taken byte by byte; only a non-ASCII character
/// after it takes the Unicode-aware path.
fn trim_start(text: &str) -> &str {
    let ascii = text.bytes().take_while(|&byte| is_ascii_space(byte)).count();
    let rest = &text[ascii..];
    if rest.as_bytes().first().is_some_and(|byte| !byte.is_ascii()) {
        rest.trim_start()
    } else {
        rest
    }
}

/// `text.trim_end()`, as [`trim_start`] does it.
fn trim_end(text: &str) -> &str {
    let ascii = text.bytes().rev().take_while(|&byte| is_ascii_space(byte)).count();
    let rest = &text[..text.len() - ascii];
    if rest.as_bytes().last().is_some_and(|byte| !byte.is_ascii()) {
        rest.trim_end()
    } else {
        rest
    }
}

/// `text.trim()`, as [`trim_start`] does it.
fn trim(text: &str) -> &str {
    trim_end(trim_start(text))
}

pub(crate) fn skip_ws(text: &str, at: usize) -> usize {
    let Some(rest) = text.get(at..) else { return at };
    at + rest.len() - trim_start(rest).len()
}

/// An identifier at the start of `text`: its length in bytes (zero if none). It is C-style
/// (C36): a letter or `_`, then letters, digits and `_`.
fn identifier(text: &str) -> usize {
    if !text.chars().next().is_some_and(|first| first.is_alphabetic() || first == '_') {
        return 0;
    }
    // ASCII first, byte by byte; the first non-ASCII character hands over to the full rule.
    let ascii = text.bytes().take_while(|&byte| byte.is_ascii_alphanumeric() || byte == b'_').count();
    if text.as_bytes().get(ascii).is_none_or(u8::is_ascii) {
        return ascii;
    }
    let rest = &text[ascii..];
    ascii + rest.char_indices().find(|&(_, c)| !is_ident_char(c)).map_or(rest.len(), |(at, _)| at)
}

/// A straight-quoted string at the start of `text`: its content and the bytes consumed.
fn quoted(text: &str) -> Option<(&str, usize)> {
    let rest = text.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some((&rest[..end], end + 2))
}

/// A name (identifier or quoted string) at the start of `text`.
fn name(text: &str) -> Option<(&str, usize)> {
    if text.starts_with('"') {
        return quoted(text);
    }
    let used = identifier(text);
    (used > 0).then(|| (&text[..used], used))
}

/// A tag at the start of `text`, and the bytes it takes.
pub(crate) fn tag(text: &str) -> Option<(TagData<'_>, usize)> {
    let (reserved, mut at) = if text.starts_with("##") {
        (true, 2)
    } else if text.starts_with('#') {
        (false, 1)
    } else {
        return None;
    };
    let (tag_name, used) = name(&text[at..])?;
    at += used;
    let mut value = None;
    if text[at..].starts_with('=') {
        let (tag_value, used) = name(&text[at + 1..])?;
        value = Some(tag_value);
        at += 1 + used;
    }
    Some((TagData { name: tag_name, value, reserved }, at))
}

/// Splits a text run into words, tags and (where `arrows`) `=>` arrows, handing each to `emit`
/// in order. A tag is a tag wherever it stands in the text (C1); a `#` or `=` that starts no
/// tag and no arrow is one of the words around it. When `escaped`, the run's first character
/// was written backslash-escaped and is a word whatever it is. `place` says where the bytes
/// `from..to` of the text were written (exactly, around decoded entities too: C32).
pub(crate) fn tokenize<'t>(
    text: &'t str,
    place: impl Fn(usize, usize) -> Range<usize>,
    arrows: bool,
    escaped: bool,
    mut emit: impl FnMut(Leaf<'t>),
) {
    // The words gathered so far are always `text[run_start..at]`: a run is one stretch of text.
    let mut run_start = 0;
    let mut at = if escaped { text.chars().next().map_or(0, char::len_utf8) } else { 0 };
    let flush = |run_start: usize, at: usize, emit: &mut dyn FnMut(Leaf<'t>)| {
        if run_start < at {
            emit(Leaf::Text(&text[run_start..at], place(run_start, at)));
        }
    };
    while at < text.len() {
        // Words up to the next place a tag or an arrow could start go in whole.
        let next = memchr::memchr2(b'#', b'=', &text.as_bytes()[at..]).map_or(text.len(), |offset| at + offset);
        if next > at {
            at = next;
            continue;
        }
        if arrows && text[at..].starts_with("=>") {
            flush(run_start, at, &mut emit);
            emit(Leaf::Arrow(place(at, at + 2)));
            at += 2;
            run_start = at;
            continue;
        }
        if text[at..].starts_with('#') {
            if let Some((data, used)) = tag(&text[at..]) {
                flush(run_start, at, &mut emit);
                emit(Leaf::Tag(data, place(at, at + used)));
                at += used;
                run_start = at;
                continue;
            }
            // Not a tag: the hashes are words (`a # b`, `###`), and so is what follows them.
            at += text[at..].len() - text[at..].trim_start_matches('#').len();
            continue;
        }
        // A lone `=`.
        at += 1;
    }
    flush(run_start, at, &mut emit);
}

/// A speaker prefix at the start of `text`, if the text opens with one in the documented shape
/// (C4): an optional name, an optional `@id` (C29), any tags, then a colon, each part after the first set
/// off by whitespace. A glued form (`Alice @A#mood=happy:`, `Alice #a#b:`) is no prefix.
pub(crate) fn speaker_prefix(text: &str) -> Option<PrefixData<'_>> {
    prefix_shape(text, false).map(|(prefix, _)| prefix)
}

/// Where a would-be speaker prefix that names more than one `@id` ends, through its colon, if
/// the text opens with one (C34): `Alice @A @B:`, `@A @B #x:` — what [`speaker_prefix`] would
/// read but for the ids after the first (C29).
pub(crate) fn prefix_with_ids(text: &str) -> Option<usize> {
    match prefix_shape(text, true)? {
        (prefix, ids) if ids > 1 => Some(prefix.consumed),
        _ => None,
    }
}

/// The prefix [`speaker_prefix`] reads, with how many ids it names: one at most, unless `many`.
fn prefix_shape(text: &str, many: bool) -> Option<(PrefixData<'_>, usize)> {
    // Every prefix ends at a colon: most lines, which have none, are turned away at once.
    memchr::memchr(b':', text.as_bytes())?;
    let mut at = skip_ws(text, 0);
    let mut speaker_name = None;
    if let Some((parsed, used)) = name(&text[at..]) {
        speaker_name = Some(parsed);
        at += used;
    }
    // Where the next part may start: after whitespace, unless nothing has been read yet.
    let spaced = |read: bool, at: usize| {
        let next = skip_ws(text, at);
        (!read || next > at).then_some(next)
    };
    // One id at most (C29): a second `@id` is neither a tag nor the colon, so no prefix.
    let (mut id, mut ids) = (None, 0);
    while let Some(next) = spaced(speaker_name.is_some() || id.is_some(), at) {
        let Some(rest) = text[next..].strip_prefix('@') else { break };
        let used = identifier(rest);
        if used == 0 || (ids == 1 && !many) {
            return None;
        }
        id = id.or(Some(&rest[..used]));
        ids += 1;
        at = next + 1 + used;
    }
    let head_end = at;
    let mut tags = Vec::new();
    while let Some(next) = spaced(speaker_name.is_some() || id.is_some() || !tags.is_empty(), at) {
        let Some((data, used)) = tag(&text[next..]) else { break };
        tags.push((data, next..next + used));
        at = next + used;
    }
    at = skip_ws(text, at);
    if !text[at..].starts_with(':') || (speaker_name.is_none() && id.is_none() && tags.is_empty()) {
        return None;
    }
    Some((PrefixData { name: speaker_name, id, tags, consumed: at + 1, head_end }, ids))
}

/// The control marker a code span's content is, if it is one (what [`code`] reads as
/// [`CodeKind::Marker`], without reading anything else).
pub(crate) fn marker(content: &str) -> Option<Marker> {
    match trim(content) {
        "if" => Some(Marker::If),
        "elseif" => Some(Marker::ElseIf),
        "else" => Some(Marker::Else),
        _ => None,
    }
}

/// The key of a condition (`key?`), if a code span's content is one: what [`code`] reads as
/// [`CodeKind::Condition`], without reading anything else.
pub(crate) fn condition(content: &str) -> Option<&str> {
    trim(content).strip_suffix('?').and_then(key)
}

/// The weight (`50%`, `%`, `key%`), if a code span's content is one: what [`code`] reads as
/// [`CodeKind::Weight`], without reading anything else.
pub(crate) fn weight_of(content: &str) -> Option<WeightSyntax> {
    trim(content).strip_suffix('%').map(|body| weight(trim(body)))
}

/// What a code span's content means.
pub(crate) fn code(content: &str) -> CodeKind<'_> {
    let trimmed = trim(content);
    if let Some(marker) = marker(trimmed) {
        return CodeKind::Marker(marker);
    }
    if let Some(body) = trimmed.strip_suffix('?') {
        return key(body).map_or(CodeKind::Invalid, CodeKind::Condition);
    }
    if let Some(body) = trimmed.strip_suffix('%') {
        return CodeKind::Weight(weight(trim(body)));
    }
    if let Some((inner, used)) = quoted(trimmed) {
        if used == trimmed.len() {
            return CodeKind::Query(inner);
        }
    }
    if let Some(inner) = trimmed.strip_prefix('(').and_then(|rest| rest.strip_suffix(')')) {
        let inner = trim(inner);
        return match quoted(inner) {
            Some((action, used)) if used == inner.len() => CodeKind::DefaultCommand(action),
            _ => CodeKind::Invalid,
        };
    }
    custom_command(trimmed).unwrap_or(CodeKind::Invalid)
}

/// A key before a sigil (the Unquoted Keys note, D2): one clean quoted string is its inner
/// text, the escape for a trailing `?` or `%`; any other text is the key as written, trimmed,
/// quotes and all (`He said "hi"`, `"a"b"`), since the quoted form cannot hold a `"`. Only
/// empty text is no key.
fn key(body: &str) -> Option<&str> {
    let body = trim(body);
    match quoted(body) {
        Some((inner, used)) if used == body.len() => Some(inner),
        _ if body.is_empty() => None,
        _ => Some(body),
    }
}

fn weight(body: &str) -> WeightSyntax {
    if body.is_empty() {
        return WeightSyntax::Auto;
    }
    let numeric = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_digit() || c == '.');
    if numeric(body) {
        return match body.parse::<f64>() {
            Ok(value) if value.is_finite() => WeightSyntax::Number(value),
            _ => WeightSyntax::Invalid(format!("{body}%")),
        };
    }
    if let Some(rest) = body.strip_prefix('-') {
        if numeric(trim(rest)) {
            return WeightSyntax::Invalid(format!("{body}%"));
        }
    }
    key(body).map_or_else(|| WeightSyntax::Invalid(format!("{body}%")), |key| WeightSyntax::Query(key.into()))
}

fn custom_command(text: &str) -> Option<CodeKind<'_>> {
    let name_len = identifier(text);
    if name_len == 0 {
        return None;
    }
    let rest = trim_start(&text[name_len..]).strip_prefix('(')?.strip_suffix(')')?;
    let mut args = Vec::new();
    let mut at = skip_ws(rest, 0);
    // After a comma another argument is due: `Join("a",)` is no call.
    let mut due = false;
    while at < rest.len() {
        let (arg, used) = quoted(&rest[at..])?;
        args.push(arg.into());
        at = skip_ws(rest, at + used);
        due = false;
        if at < rest.len() {
            at = skip_ws(rest, at + usize::from(rest[at..].starts_with(',')));
            if !trim_end(&rest[..at]).ends_with(',') {
                return None;
            }
            due = true;
        }
    }
    if due {
        return None;
    }
    Some(CodeKind::CustomCommand(&text[..name_len], args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_agree_with_the_standard_library() {
        let samples = [
            "",
            " ",
            "a",
            " a ",
            "\u{0B}a\u{0C}",
            "\t\r\n a b \n",
            "\u{3000}a\u{a0}",
            " \u{2003} é \u{2003} ",
            "é",
            "\u{85}",
        ];
        for text in samples {
            assert_eq!(trim_start(text), text.trim_start(), "{text:?}");
            assert_eq!(trim_end(text), text.trim_end(), "{text:?}");
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn game_calls_are_told_apart() {
        assert_eq!(code("\"Alice.Color\""), CodeKind::Query("Alice.Color"));
        assert_eq!(code("(\"fade in\")"), CodeKind::DefaultCommand("fade in"));
        assert_eq!(
            code("Join(\"Alice\", \"Art\")"),
            CodeKind::CustomCommand("Join", vec!["Alice".into(), "Art".into()])
        );
        assert_eq!(code("Wave()"), CodeKind::CustomCommand("Wave", vec![]));
        assert_eq!(code("just some words"), CodeKind::Invalid);
        assert_eq!(code("Join(\"a\" \"b\")"), CodeKind::Invalid);
        // The guide's `ArgList` puts a quoted string after every comma: a comma that ends the
        // list, or a dotted name (C36), makes no call.
        assert_eq!(code("Join(\"a\",)"), CodeKind::Invalid);
        assert_eq!(code("Join(\"a\", \"b\" , )"), CodeKind::Invalid);
        assert_eq!(code("Game.Save()"), CodeKind::Invalid);
    }

    #[test]
    fn conditions_and_weights_take_unquoted_or_quoted_keys() {
        assert_eq!(code("Is Alice happy?"), CodeKind::Condition("Is Alice happy"));
        assert_eq!(code("\"Rainy?\"?"), CodeKind::Condition("Rainy?"));
        assert_eq!(code("50%"), CodeKind::Weight(WeightSyntax::Number(50.0)));
        assert_eq!(code("%"), CodeKind::Weight(WeightSyntax::Auto));
        assert_eq!(code("Bob.Affection%"), CodeKind::Weight(WeightSyntax::Query("Bob.Affection".into())));
        assert_eq!(code("-10%"), CodeKind::Weight(WeightSyntax::Invalid("-10%".into())));
        assert_eq!(code("else"), CodeKind::Marker(Marker::Else));
        assert_eq!(code("?"), CodeKind::Invalid);
    }

    /// Every row of the Unquoted Keys note's table of error and boundary cases, and D2's and
    /// D3's examples: only a clean `"…"` is read as quoted; other text is the key as written.
    #[test]
    fn the_unquoted_keys_boundary_table_holds() {
        let rows = [
            ("IsAngry?", CodeKind::Condition("IsAngry")),
            ("Is Alice happy?", CodeKind::Condition("Is Alice happy")),
            ("\"Rainy?\"?", CodeKind::Condition("Rainy?")),
            ("He said \"hi\"?", CodeKind::Condition("He said \"hi\"")),
            ("\"a\"b\"?", CodeKind::Condition("\"a\"b\"")),
            ("?", CodeKind::Invalid),
            ("IsAngry", CodeKind::Invalid),
            ("Luck%", CodeKind::Weight(WeightSyntax::Query("Luck".into()))),
            ("50%", CodeKind::Weight(WeightSyntax::Number(50.0))),
            ("-5%", CodeKind::Weight(WeightSyntax::Invalid("-5%".into()))),
            ("%", CodeKind::Weight(WeightSyntax::Auto)),
            ("JoinClub(\"Alice\")", CodeKind::CustomCommand("JoinClub", vec!["Alice".into()])),
            // D2: quotes never change a key, and the quoted and unquoted forms agree.
            ("X?", CodeKind::Condition("X")),
            ("\"X\"?", CodeKind::Condition("X")),
            (" \"a\" \"b\" ?", CodeKind::Condition("\"a\" \"b\"")),
            ("\"Luck\"%", CodeKind::Weight(WeightSyntax::Query("Luck".into()))),
            ("\"Rainy%\"%", CodeKind::Weight(WeightSyntax::Query("Rainy%".into()))),
            // The crosscheck: non-numeric text is a key, a negative number the only invalid weight.
            ("He said \"hi\"%", CodeKind::Weight(WeightSyntax::Query("He said \"hi\"".into()))),
            ("\"a\"b\"%", CodeKind::Weight(WeightSyntax::Query("\"a\"b\"".into()))),
            ("1/2%", CodeKind::Weight(WeightSyntax::Query("1/2".into()))),
            ("- 5 %", CodeKind::Weight(WeightSyntax::Invalid("- 5%".into()))),
        ];
        for (content, expected) in rows {
            assert_eq!(code(content), expected, "{content:?}");
        }
    }

    #[test]
    fn conditions_and_weights_read_alone_agree_with_code() {
        let samples = [
            " Rich? ",
            "\"Rainy?\"?",
            "?",
            "a \"b\"?",
            "\"a\"b\"?",
            "He said \"hi\"%",
            "50%",
            " % ",
            "Bob.Affection %",
            "-10%",
            "if",
            "else?",
            "Wave()",
            "\"Name\"",
            "(\"nod\")",
            "x",
        ];
        for content in samples {
            let (condition, weight) = match code(content) {
                CodeKind::Condition(key) => (Some(key), None),
                CodeKind::Weight(weight) => (None, Some(weight)),
                _ => (None, None),
            };
            assert_eq!(super::condition(content), condition, "{content:?}");
            assert_eq!(weight_of(content), weight, "{content:?}");
        }
    }

    #[test]
    fn speaker_prefixes_parse_only_when_whole() {
        let prefix = speaker_prefix("Alice @A #main #mood=happy: Hello").unwrap();
        assert_eq!(prefix.name, Some("Alice"));
        assert_eq!(prefix.id, Some("A"));
        assert_eq!(prefix.tags.len(), 2);
        assert_eq!(&"Alice @A #main #mood=happy: Hello"[prefix.consumed..], " Hello");
        assert!(speaker_prefix("The time is 3:00").is_none());
        assert_eq!(speaker_prefix("Alice :Hi").unwrap().consumed, 7);
        assert!(speaker_prefix("\"Old Man\": Hi").unwrap().name == Some("Old Man"));
        assert_eq!(speaker_prefix("@A #x:Hi").unwrap().id, Some("A"));
        for glued in ["Alice @A#mood=happy: Hi", "Alice @A #a#b: Hi", "Alice@A: Hi", "Alice#a: Hi", "\"Bo\"@B: Hi"] {
            assert!(speaker_prefix(glued).is_none(), "{glued}");
        }
    }

    fn split<'t>(text: &'t str, span: &Range<usize>, arrows: bool) -> Vec<Leaf<'t>> {
        let mut leaves = Vec::new();
        tokenize(text, |from, to| span.start + from..span.start + to, arrows, false, |leaf| leaves.push(leaf));
        leaves
    }

    #[test]
    fn text_splits_at_tags_and_arrows() {
        let text = "Fresh apples! #marketday \u{2014} come. #end";
        let leaves = split(text, &(0..text.len()), true);
        assert!(matches!(&leaves[0], Leaf::Text(words, _) if *words == "Fresh apples! "));
        assert!(matches!(&leaves[1], Leaf::Tag(tag, _) if tag.name == "marketday"));
        assert!(matches!(&leaves[2], Leaf::Text(words, _) if *words == " \u{2014} come. "));
        assert!(matches!(&leaves[3], Leaf::Tag(tag, _) if tag.name == "end"));
        let leaves = split("a => b", &(0..6), true);
        assert_eq!(leaves.len(), 3);
        assert!(matches!(leaves[1], Leaf::Arrow(_)));
    }
}
