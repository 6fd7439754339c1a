//! Which globals a Lua chunk reads and which it assigns, read off its tokens, for `check`'s
//! warning about globals nothing defines (a game's functions the project expects, `game.*`,
//! `Quest[...]`).
//!
//! A small Lua 5.1 tokenizer skips comments, strings (quoted and long-bracket) and numbers. A name
//! is a **global read** when it is not a keyword, not a field (after `.` or `:`), not a table
//! constructor's key (`{ name = 1 }`), not being assigned (`name = ...`), and not declared in the
//! chunk (`local`, a function's parameters, a `for` variable). A name is **assigned** by
//! `name = ...` outside any table constructor, or by `function name(...)`.
//!
//! Limits, all toward silence: a `local` anywhere in the chunk hides that name everywhere in it
//! (scopes are not tracked), and in `a, b = 1, 2` only the last name counts as assigned (the
//! others count as reads). Names built at run time (`_G["x"]`, `rawget(_G, "x")`) are not seen.

/// The ChatMapper surface every chunk sees besides the sandbox's own globals
/// ([`stagehand_lua::SANDBOX_GLOBALS`]): the tables and functions of FORMAT.md §6.
pub(crate) const CHATMAPPER_SURFACE: &[&str] = &[
    "Actor",
    "Item",
    "Location",
    "Variable",
    "Conversation",
    "Dialog",
    "StatusTable",
    "RelationshipTable",
    "GetStatus",
    "SetStatus",
    "GetRelationship",
    "SetRelationship",
    "IncRelationship",
    "DecRelationship",
];

/// Every global a chunk sees before anything is defined: the sandbox's and the ChatMapper surface.
pub(crate) fn predefined() -> impl Iterator<Item = &'static str> {
    stagehand_lua::SANDBOX_GLOBALS.iter().chain(CHATMAPPER_SURFACE).copied()
}

const KEYWORDS: &[&str] = &[
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in", "local", "nil", "not", "or",
    "repeat", "return", "then", "true", "until", "while",
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token<'a> {
    Name(&'a str),
    /// One punctuation token: `=`, `==`, `.`, `..`, `:`, `{`, ...
    Punct(&'a str),
    /// A string or a number.
    Literal,
}

fn long_bracket(bytes: &[u8], at: usize) -> Option<usize> {
    // `[` `=`* `[`: the level, or None when it is not a long bracket.
    let mut i = at + 1;
    while bytes.get(i) == Some(&b'=') {
        i += 1;
    }
    (bytes.get(i) == Some(&b'[')).then_some(i - at - 1)
}

/// The end of a long bracket of `level` opened before `from` (or the text's end).
fn close_long(text: &str, from: usize, level: usize) -> usize {
    let close = format!("]{}]", "=".repeat(level));
    text[from..].find(&close).map_or(text.len(), |i| from + i + close.len())
}

fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("--") {
            i += 2;
            match (bytes.get(i) == Some(&b'[')).then(|| long_bracket(bytes, i)).flatten() {
                Some(level) => i = close_long(text, i + level + 2, level),
                None => i = text[i..].find('\n').map_or(text.len(), |n| i + n),
            }
        } else if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(Token::Name(&text[start..i]));
        } else if b.is_ascii_digit() || (b == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric()
                    || bytes[i] == b'.'
                    || ((bytes[i] == b'-' || bytes[i] == b'+') && matches!(bytes[i - 1], b'e' | b'E')))
            {
                i += 1;
            }
            out.push(Token::Literal);
        } else if b == b'"' || b == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != b {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(Token::Literal);
        } else if let Some(level) = (b == b'[').then(|| long_bracket(bytes, i)).flatten() {
            i = close_long(text, i + level + 2, level);
            out.push(Token::Literal);
        } else {
            let len =
                ["...", "..", "==", "~=", "<=", ">="].iter().find(|p| text[i..].starts_with(*p)).map_or(1, |p| p.len());
            let len =
                if text.is_char_boundary(i + len) { len } else { text[i..].chars().next().map_or(1, char::len_utf8) };
            out.push(Token::Punct(&text[i..i + len]));
            i += len;
        }
    }
    out
}

/// What one chunk does with globals.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Globals {
    /// Globals read, in order of first reading, each once.
    pub reads: Vec<String>,
    /// Globals assigned.
    pub assigned: Vec<String>,
}

/// The globals `source` reads and assigns (a condition is an expression; the same rules hold).
pub(crate) fn globals(source: &str) -> Globals {
    let tokens = tokens(source);
    let name = |i: usize| match tokens.get(i) {
        Some(Token::Name(n)) if !KEYWORDS.contains(n) => Some(*n),
        _ => None,
    };
    let punct = |i: usize, p: &str| matches!(tokens.get(i), Some(Token::Punct(q)) if *q == p);
    let keyword = |i: usize, k: &str| matches!(tokens.get(i), Some(Token::Name(n)) if *n == k);
    // Declared names: after `local` (and `local function`), a function's parameters, `for` variables.
    let mut declared: Vec<&str> = Vec::new();
    for i in 0..tokens.len() {
        if keyword(i, "local") || keyword(i, "for") {
            let mut j = i + 1;
            if keyword(j, "function") {
                j += 1;
            }
            while let Some(n) = name(j) {
                declared.push(n);
                if !punct(j + 1, ",") {
                    break;
                }
                j += 2;
            }
        }
        if keyword(i, "function") {
            let Some(open) = (i + 1..tokens.len()).find(|&j| punct(j, "(")) else { continue };
            let mut j = open + 1;
            while let Some(n) = name(j) {
                declared.push(n);
                j += if punct(j + 1, ",") { 2 } else { 1 };
            }
        }
    }
    let mut out = Globals::default();
    let mut braces = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        match token {
            Token::Punct("{") => braces += 1,
            Token::Punct("}") => braces = braces.saturating_sub(1),
            _ => {}
        }
        let Some(n) = name(i) else { continue };
        let field = i > 0 && (punct(i - 1, ".") || punct(i - 1, ":"));
        if field || declared.contains(&n) {
            continue;
        }
        let assigned = punct(i + 1, "=");
        if assigned && braces > 0 {
            continue; // a constructor's key
        }
        if assigned || (i > 0 && keyword(i - 1, "function") && !punct(i + 1, ".") && !punct(i + 1, ":")) {
            out.assigned.push(n.to_owned());
        } else if !out.reads.iter().any(|r| r == n) {
            out.reads.push(n.to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_skip_fields_locals_keys_strings_and_comments() {
        let found = globals(
            "local a, b = game.x, \"Quest\" -- Hidden\nfor i, v in pairs(t) do c = {k = v, [i] = a} end\n\
             function f(p) return p + z:m() end --[[ Ignored ]] s = [==[ Gone ]==] .. y",
        );
        assert_eq!(found.reads, ["game", "pairs", "t", "z", "y"]);
        assert_eq!(found.assigned, ["c", "f", "s"]);
    }
}
