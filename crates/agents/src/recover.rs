//! Tolerant recovery of the JSON object in a judge's reply (CONTRACT.md §1.5, J1–J4).
//!
//! A judge is asked for exactly one JSON object but may wrap it in a Markdown fence, surround
//! it with prose, leave trailing commas or stop mid-way. [`recover_object`] finds the first
//! object in document order: at each `{` it tries the balanced span as written (strict), then
//! the same span repaired, before moving on to the next `{`.

use serde_json::{Map, Value};

/// At most this many candidate positions are tried, so a reply of many stray braces costs
/// bounded time (J4).
pub const MAX_CANDIDATES: usize = 256;

/// The first JSON object in `raw`, recovered tolerantly; `None` when there is none.
///
/// Never panics, whatever the input; time is bounded by [`MAX_CANDIDATES`] scans of `raw`.
pub fn recover_object(raw: &str) -> Option<Map<String, Value>> {
    let body = strip_wrapping_fence(raw.trim());
    if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(body) {
        return Some(map);
    }
    let starts = body.char_indices().filter(|&(_, c)| c == '{').map(|(i, _)| i);
    for start in starts.take(MAX_CANDIDATES) {
        let text = &body[start..];
        if let Some(span) = scan(text, false) {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&span) {
                return Some(map);
            }
        }
        if let Some(span) = scan(text, true) {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&span) {
                return Some(map);
            }
        }
    }
    None
}

/// The inside of one Markdown fence wrapping the whole text, else the text itself.
fn strip_wrapping_fence(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(inner) = rest.strip_suffix("```") else {
        return text;
    };
    // The info string (`json`, …) runs to the end of the opening line.
    match inner.find('\n') {
        Some(newline) => inner[newline + 1..].trim(),
        None => text,
    }
}

/// What an open container expects next; only objects need it for repair.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// A key (after `{` or `,` in an object).
    Key,
    /// The `:` after a key.
    Colon,
    /// A value (after `:` in an object, or anywhere in an array).
    Value,
    /// A `,` or the close (after a value).
    Comma,
}

struct Open {
    close: char,
    expect: Expect,
}

/// The JSON text of the value starting at `text`'s first character (a `{`).
///
/// Strict (`repair == false`): the span up to the brace that balances it, or `None` if the text
/// ends first. Repairing: trailing commas before a close are dropped, and a text that ends (or
/// meets a fence line outside a string) before balancing is completed — an open string, escape,
/// key or literal finished, then every open container closed (J2, J3).
fn scan(text: &str, repair: bool) -> Option<String> {
    let mut out = String::with_capacity(text.len().min(1 << 16));
    let mut stack: Vec<Open> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    let mut unicode_left = 0u8;
    let mut at_line_start = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if unicode_left > 0 {
                unicode_left -= 1;
            } else if escaped {
                escaped = false;
                if c == 'u' {
                    unicode_left = 4;
                }
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
                after_token(&mut stack);
            }
            continue;
        }
        if repair && at_line_start && c == '`' {
            break; // a fence line outside a string ends the candidate
        }
        if c == '\n' {
            at_line_start = true;
        } else if !c.is_whitespace() {
            at_line_start = false;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                stack.push(Open {
                    close: if c == '{' { '}' } else { ']' },
                    expect: if c == '{' { Expect::Key } else { Expect::Value },
                });
            }
            '}' | ']' => {
                if repair {
                    drop_trailing_comma(&mut out);
                }
                out.push(c);
                stack.pop();
                if stack.is_empty() {
                    return Some(out);
                }
                after_token(&mut stack);
            }
            ':' => {
                out.push(c);
                if let Some(top) = stack.last_mut() {
                    top.expect = Expect::Value;
                }
            }
            ',' => {
                out.push(c);
                if let Some(top) = stack.last_mut() {
                    top.expect = if top.close == '}' { Expect::Key } else { Expect::Value };
                }
            }
            _ => {
                out.push(c);
                if !c.is_whitespace() {
                    if let Some(top) = stack.last_mut() {
                        if top.expect == Expect::Value {
                            top.expect = Expect::Comma; // a bare literal or number
                        }
                    }
                }
            }
        }
    }
    if !repair {
        return None;
    }
    if in_string {
        if escaped {
            out.pop(); // a lone trailing backslash
        } else if unicode_left > 0 {
            // An unfinished `\uXX`: drop it with its backslash.
            let keep = out.len() - (4 - usize::from(unicode_left)) - 2;
            out.truncate(keep);
        }
        out.push('"');
        after_token(&mut stack);
    } else {
        finish_literal(&mut out);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    match stack.last().map(|open| open.expect) {
        Some(Expect::Colon) => out.push_str(":null"),
        Some(Expect::Value) if out.ends_with(':') => out.push_str("null"),
        _ => {}
    }
    drop_trailing_comma(&mut out);
    while let Some(open) = stack.pop() {
        out.push(open.close);
    }
    Some(out)
}

/// A string or value just ended: the container moves on to what follows it.
fn after_token(stack: &mut [Open]) {
    if let Some(top) = stack.last_mut() {
        top.expect = match top.expect {
            Expect::Key => Expect::Colon,
            _ => Expect::Comma,
        };
    }
}

/// Removes a `,` (and the whitespace after it) at the end of `out`.
fn drop_trailing_comma(out: &mut String) {
    let body = out.trim_end();
    if body.ends_with(',') {
        let keep = body.len() - 1;
        out.truncate(keep);
    }
}

/// Completes a literal cut short at the end of the text (`tru` → `true`, `1.` → `1`).
fn finish_literal(out: &mut String) {
    let word_start = out
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = &out[word_start..];
    if word.is_empty() {
        return;
    }
    for literal in ["true", "false", "null"] {
        if literal.starts_with(word) {
            out.truncate(word_start);
            out.push_str(literal);
            return;
        }
    }
    while out.len() > word_start && out.ends_with(['.', 'e', 'E', '+', '-']) {
        out.pop();
    }
    if out.len() == word_start {
        out.push_str("null");
    }
}
