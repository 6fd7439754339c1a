//! The JSON Schemas under `docs/schema/`, read, and a checker for the parts of JSON Schema
//! they use (`$ref`, `oneOf`, `anyOf`, `allOf`, `if`/`then`/`else`, `not`, `type`, `enum`,
//! `const`, `minimum`, `pattern`, `items`, `required`, `additionalProperties: false`), so the
//! documents and the code cannot drift apart unnoticed.

#![allow(dead_code)]

use serde_json::Value;

/// A schema under `docs/schema/`.
pub fn schema(name: &str) -> Value {
    let path = format!("{}/../../docs/schema/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).expect(name)
}

/// The two patterns the schemas use, checked by hand.
fn matches_pattern(pattern: &str, text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match pattern {
        "^(apply|input)-[0-9]+$" => {
            text.strip_prefix("apply-").or_else(|| text.strip_prefix("input-")).is_some_and(digits)
        }
        "^(next|done|failed|retry|undo|restart|choose:(0|[1-9][0-9]*)|jump:.+|retry:.+)$" => {
            let canonical = |s: &str| digits(s) && (s == "0" || !s.starts_with('0'));
            matches!(text, "next" | "done" | "failed" | "retry" | "undo" | "restart")
                || text.strip_prefix("choose:").is_some_and(canonical)
                || ["jump:", "retry:"].iter().any(|p| text.strip_prefix(p).is_some_and(|s| !s.is_empty()))
        }
        other => panic!("a pattern this checker does not know: {other}"),
    }
}

fn of_type(value: &Value, kind: &str) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_u64() || value.is_i64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        other => panic!("unknown type {other}"),
    }
}

/// Checks `value` against `schema`, the keywords the two schema files use.
pub fn fits(value: &Value, schema: &Value, root: &Value) -> Result<(), String> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        return fits(value, &root["$defs"][name], root);
    }
    if let Some(options) = schema["oneOf"].as_array() {
        let fitting = options.iter().filter(|o| fits(value, o, root).is_ok()).count();
        if fitting != 1 {
            let why: Vec<String> = options.iter().filter_map(|o| fits(value, o, root).err()).collect();
            return Err(format!("fits {fitting} of oneOf ({})", why.join("; ")));
        }
    }
    if let Some(options) = schema["anyOf"].as_array() {
        if !options.iter().any(|o| fits(value, o, root).is_ok()) {
            return Err("fits none of anyOf".into());
        }
    }
    for part in schema["allOf"].as_array().into_iter().flatten() {
        fits(value, part, root)?;
    }
    if let Some(condition) = schema.get("if") {
        let branch = if fits(value, condition, root).is_ok() { "then" } else { "else" };
        if let Some(then) = schema.get(branch) {
            fits(value, then, root).map_err(|e| format!("{branch}: {e}"))?;
        }
    }
    if let Some(not) = schema.get("not") {
        if fits(value, not, root).is_ok() {
            return Err(format!("{value} fits what `not` forbids: {not}"));
        }
    }
    match &schema["type"] {
        Value::String(kind) if !of_type(value, kind) => return Err(format!("{value} is not {kind}")),
        Value::Array(kinds) if !kinds.iter().any(|k| of_type(value, k.as_str().unwrap_or(""))) => {
            return Err(format!("{value} is none of {kinds:?}"))
        }
        _ => {}
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(value) {
            return Err(format!("{value} is not one of {allowed:?}"));
        }
    }
    if !schema["const"].is_null() && &schema["const"] != value {
        return Err(format!("{value} is not {}", schema["const"]));
    }
    if let (Some(minimum), Some(number)) = (schema["minimum"].as_f64(), value.as_f64()) {
        if number < minimum {
            return Err(format!("{value} is below {minimum}"));
        }
    }
    if let (Some(pattern), Some(text)) = (schema["pattern"].as_str(), value.as_str()) {
        if !matches_pattern(pattern, text) {
            return Err(format!("{text:?} does not match {pattern}"));
        }
    }
    if let (Some(items), Some(values)) = (schema.get("items"), value.as_array()) {
        for item in values {
            fits(item, items, root)?;
        }
    }
    if let Some(object) = value.as_object() {
        let properties = schema["properties"].as_object();
        for required in schema["required"].as_array().into_iter().flatten() {
            if !object.contains_key(required.as_str().unwrap_or_default()) {
                return Err(format!("lacks {required}"));
            }
        }
        for (key, member) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(property) => fits(member, property, root).map_err(|e| format!("{key}: {e}"))?,
                None if schema["additionalProperties"] == Value::Bool(false) => {
                    return Err(format!("{key} is not in the schema"))
                }
                None => {}
            }
        }
    }
    Ok(())
}
