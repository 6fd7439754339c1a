//! The TOML writer: a machine in its hand-writable form (A2).
//!
//! Top-level members come first as `key = value` lines, then one `[[states]]` table per state;
//! everything below a state's keys is written inline. `toml`'s own writer (its `display`
//! feature) is not in the offline registry, and the document needs only this much.

use std::fmt::Write;

use serde_json::Value;

use super::Machine;

/// A machine member TOML cannot spell: a `null` literal or an integer past `i64`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct Unwritable {
    /// A JSON path to the value.
    pub path: String,
    /// Why TOML cannot hold it.
    pub reason: &'static str,
}

/// Writes a machine as TOML that [`super::read_toml`] reads back to the same machine.
pub fn write_toml(machine: &Machine) -> Result<String, Unwritable> {
    let value = serde_json::to_value(machine).map_err(|_| Unwritable { path: "$".into(), reason: "not JSON" })?;
    let Value::Object(root) = value else { return Err(Unwritable { path: "$".into(), reason: "not an object" }) };
    let mut out = String::new();
    for (key, v) in root.iter().filter(|(k, _)| k.as_str() != "states") {
        line(&mut out, key, v, &format!("$.{key}"))?;
    }
    let states = root.get("states").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (i, state) in states.iter().enumerate() {
        out.push_str("\n[[states]]\n");
        for (key, v) in state.as_object().into_iter().flatten() {
            line(&mut out, key, v, &format!("$.states[{i}].{key}"))?;
        }
    }
    Ok(out)
}

fn line(out: &mut String, key: &str, v: &Value, path: &str) -> Result<(), Unwritable> {
    write_key(out, key);
    out.push_str(" = ");
    inline(out, v, path)?;
    out.push('\n');
    Ok(())
}

fn inline(out: &mut String, v: &Value, path: &str) -> Result<(), Unwritable> {
    match v {
        Value::Null => return Err(Unwritable { path: path.into(), reason: "TOML has no null" }),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                let _ = write!(out, "{i}");
            } else if n.is_u64() {
                return Err(Unwritable { path: path.into(), reason: "TOML integers stop at i64" });
            } else {
                let _ = write!(out, "{n}");
            }
        }
        Value::String(s) => string(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(out, item, &format!("{path}[{i}]"))?;
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                out.push_str(if i > 0 { ", " } else { " " });
                write_key(out, k);
                out.push_str(" = ");
                inline(out, item, &format!("{path}.{k}"))?;
            }
            out.push_str(if members.is_empty() { "}" } else { " }" });
        }
    }
    Ok(())
}

fn write_key(out: &mut String, key: &str) {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        out.push_str(key);
    } else {
        string(out, key);
    }
}

/// A TOML basic string: quote, backslash and control characters escaped.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}
