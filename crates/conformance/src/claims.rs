//! Claims about JSON values, as fixtures make them: a claim names only what it asserts.
//!
//! - An object claims the keys it names, each held to the value's member of that name.
//! - An array claims the whole list: the same length, each element held in turn.
//! - `null` claims that the member is absent (or null).
//! - Numbers compare as numbers (`2` holds of `2.0`); anything else by equality.

use serde_json::Value;

/// Whether `claim` holds of `observed`; the first difference, with its path, when it does not.
pub(crate) fn subset(claim: &Value, observed: &Value, path: &str) -> Option<String> {
    match (claim, observed) {
        (Value::Object(claims), Value::Object(seen)) => claims.iter().find_map(|(key, value)| {
            let path = format!("{path}.{key}");
            match (value, seen.get(key)) {
                (Value::Null, None) => None,
                (_, Some(actual)) => subset(value, actual, &path),
                (_, None) => Some(format!("{path}: claimed {value}, but there is no such value")),
            }
        }),
        (Value::Array(claims), Value::Array(seen)) => {
            if claims.len() != seen.len() {
                return Some(format!(
                    "{path}: claimed {} item(s), but there are {}: {}",
                    claims.len(),
                    seen.len(),
                    Value::Array(seen.clone())
                ));
            }
            claims
                .iter()
                .zip(seen)
                .enumerate()
                .find_map(|(i, (claim, actual))| subset(claim, actual, &format!("{path}[{i}]")))
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (a, b) if a == b => None,
        (a, b) => Some(format!("{path}: claimed {a}, but it is {b}")),
    }
}

#[cfg(test)]
mod tests {
    use super::subset;
    use serde_json::json;

    #[test]
    fn objects_claim_only_the_keys_they_name() {
        assert_eq!(subset(&json!({"a": 1}), &json!({"a": 1.0, "b": 2}), "$"), None);
        let missing = subset(&json!({"c": 1}), &json!({"a": 1}), "$").unwrap();
        assert!(missing.contains("$.c"), "{missing}");
    }

    #[test]
    fn arrays_claim_their_length_and_each_element() {
        assert_eq!(subset(&json!([{"id": "next"}]), &json!([{"id": "next", "label": "Next"}]), "$"), None);
        let longer = subset(&json!([]), &json!([1]), "$").unwrap();
        assert!(longer.contains("claimed 0 item(s), but there are 1"), "{longer}");
        let differs = subset(&json!([1, 3]), &json!([1, 2]), "$").unwrap();
        assert!(differs.starts_with("$[1]"), "{differs}");
    }

    #[test]
    fn null_claims_absence() {
        assert_eq!(subset(&json!({"lastError": null}), &json!({"status": "active"}), "$"), None);
        assert!(subset(&json!({"lastError": null}), &json!({"lastError": "x"}), "$").is_some());
    }
}
