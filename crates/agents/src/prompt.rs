//! Prompt composition for players and the Captain (CONTRACT.md §1.12, §1.9; J9–J12).
//!
//! A prompt template is literal text with `<placeholder>` tokens. Each token names a context
//! field — kebab-case tokens map to camelCase fields (`<coder-output>` → `coderOutput`), `<#>`
//! to `irNumber`, and a machine may name exceptions. Substitution is one literal pass: text
//! put in for a placeholder is never scanned again.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The fixed preamble that opens a resumed prompt, before the question and the reply (J12).
pub const CONTINUATION_PREAMBLE: &str = "This task was paused so that Boss could answer a \
question. Boss has answered now. Carry on with the same task, taking the answer below into \
account.";

/// Who a prompt is for: it decides how non-text values are written (J10).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    /// A delegated player: text, numbers and booleans are substituted; structured values
    /// are not.
    Player,
    /// The Captain: structured values are substituted too, as JSON with sorted keys.
    Captain,
}

/// A resumed question: what was asked and what Boss replied, both verbatim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Continuation<'a> {
    /// The question the player (or Captain) asked.
    pub question: &'a str,
    /// Boss's reply, exactly as typed.
    pub reply: &'a str,
}

/// The context field a placeholder token names: an explicit exception from `overrides` first,
/// then `#` → `irNumber`, then kebab-case to camelCase (each `-` before a letter or digit is
/// dropped and that character upper-cased).
pub fn placeholder_field(token: &str, overrides: &BTreeMap<String, String>) -> String {
    if let Some(field) = overrides.get(token) {
        return field.clone();
    }
    if token == "#" {
        return "irNumber".to_owned();
    }
    let mut field = String::with_capacity(token.len());
    let mut chars = token.chars().peekable();
    while let Some(c) = chars.next() {
        match chars.peek() {
            Some(&next) if c == '-' && next.is_ascii_alphanumeric() => {
                chars.next();
                field.push(next.to_ascii_uppercase());
            }
            _ => field.push(c),
        }
    }
    field
}

/// `template` with each placeholder replaced from `context`, in one literal pass.
///
/// A placeholder is `<#>` or `<` + `[A-Za-z_$][A-Za-z0-9_$-]*` + `>`. One whose field is
/// absent, `null`, or (for a player) an array or object stays exactly as written (J11).
pub fn substitute(
    template: &str,
    context: &Map<String, Value>,
    overrides: &BTreeMap<String, String>,
    audience: Audience,
) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match placeholder_len(after) {
            Some(len) => {
                let token = &after[..len];
                let field = placeholder_field(token, overrides);
                match context.get(&field).and_then(|v| render(v, audience)) {
                    Some(text) => out.push_str(&text),
                    None => out.push_str(&rest[open..open + len + 2]),
                }
                rest = &after[len + 1..];
            }
            None => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The length of the token at the start of `text` if `text` is `token>`.
fn placeholder_len(text: &str) -> Option<usize> {
    if text.starts_with("#>") {
        return Some(1);
    }
    let mut chars = text.char_indices();
    let (_, first) = chars.next()?;
    if !(first.is_ascii_alphabetic() || first == '_' || first == '$') {
        return None;
    }
    for (i, c) in chars {
        if c == '>' {
            return Some(i);
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '-')) {
            return None;
        }
    }
    None
}

/// How a context value is written into a prompt, or `None` to leave the placeholder.
fn render(value: &Value, audience: Audience) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        Value::Null => None,
        Value::Array(_) | Value::Object(_) => match audience {
            Audience::Player => None,
            Audience::Captain => Some(sorted_json(value)),
        },
    }
}

/// `value` as compact JSON with the keys of every object sorted.
pub fn sorted_json(value: &Value) -> String {
    sort_keys(value).to_string()
}

fn sort_keys(value: &Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(sort_keys).collect()),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut sorted = Map::with_capacity(map.len());
            for key in keys {
                sorted.insert(key.clone(), sort_keys(&map[key]));
            }
            Value::Object(sorted)
        }
        other => other.clone(),
    }
}

/// The prompt sent to a player or the Captain: on a resumed question the continuation
/// preamble and the labelled `Boss question:` / `Boss reply:` blocks, then the substituted
/// template; blocks are separated by one blank line.
pub fn compose(
    template: &str,
    context: &Map<String, Value>,
    overrides: &BTreeMap<String, String>,
    audience: Audience,
    continuation: Option<Continuation<'_>>,
) -> String {
    let body = substitute(template, context, overrides, audience);
    match continuation {
        None => body,
        Some(resumed) => format!(
            "{CONTINUATION_PREAMBLE}\n\nBoss question:\n{}\n\nBoss reply:\n{}\n\n{body}",
            resumed.question, resumed.reply
        ),
    }
}
