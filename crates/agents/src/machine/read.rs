//! The reader: JSON or TOML text to a checked [`Machine`], or the first [`Refusal`].

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::rules::validate;
use super::Machine;

/// Why a machine document was refused: the rule broken, where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {rule}: expected {expected}")]
pub struct Refusal {
    /// The rule's kebab-case name, e.g. `missing-target`.
    pub rule: &'static str,
    /// A JSON path to the offending value, e.g. `$.states[3].invoke.results[0].guard`.
    pub path: String,
    /// What the reader expected there.
    pub expected: String,
}

impl Refusal {
    pub(crate) fn new(rule: &'static str, path: impl Into<String>, expected: impl Into<String>) -> Self {
        Refusal { rule, path: path.into(), expected: expected.into() }
    }
}

/// Reads a machine from its JSON wire form.
pub fn read_json(text: &str) -> Result<Machine, Refusal> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| Refusal::new("syntax", "$", format!("JSON (line {}, column {}: {e})", e.line(), e.column())))?;
    read_value(value)
}

/// Reads a machine from its hand-writable TOML form; it loads to the same value as the JSON
/// form because both go through one JSON value (A2).
pub fn read_toml(text: &str) -> Result<Machine, Refusal> {
    let value: Value = toml::from_str(text)
        .map_err(|e| Refusal::new("syntax", "$", format!("TOML ({})", e.to_string().trim_end())))?;
    read_value(value)
}

/// Reads a machine from an already parsed JSON value.
pub fn read_value(value: Value) -> Result<Machine, Refusal> {
    let machine: Machine = serde_json::from_value(value.clone())
        .map_err(|e| Refusal::new("shape", locate(&value), format!("the machine document shape ({e})")))?;
    validate(&machine)?;
    Ok(machine)
}

/// Whether a value fails to deserialise as one listed element type.
type Probe = fn(&Value) -> bool;

fn fails<T: DeserializeOwned>(v: &Value) -> bool {
    T::deserialize(v).is_err()
}

/// Finds the innermost listed element that does not deserialise, for a shape refusal's path.
fn locate(root: &Value) -> String {
    use super::types::*;
    let Some(obj) = root.as_object() else { return "$".into() };
    if let Some(compat) = obj.get("compat").filter(|c| fails::<Compat>(c)) {
        let numbers: [(&str, Probe); 2] = [("artifactSchema", fails::<i64>), ("runtimeAbi", fails::<i64>)];
        return compat.as_object().and_then(|c| member(c, "$.compat", &numbers)).unwrap_or_else(|| "$.compat".into());
    }
    let members: [(&str, Probe); 10] = [
        ("id", fails::<String>),
        ("initial", fails::<String>),
        ("description", fails::<String>),
        ("bossReply", fails::<BossReply>),
        ("entryEvent", fails::<EntryEvent>),
        ("context", fails::<Vec<Value>>),
        ("events", fails::<Vec<Value>>),
        ("states", fails::<Vec<Value>>),
        ("bossInterrupt", fails::<Vec<Value>>),
        ("playerStates", fails::<Vec<Value>>),
    ];
    if let Some(path) = member(obj, "$", &members) {
        return path;
    }
    let lists: [(&str, Probe); 6] = [
        ("context", fails::<ContextField>),
        ("events", fails::<EventSpec>),
        ("states", fails::<State>),
        ("bossInterrupt", fails::<Jump>),
        ("playerStates", fails::<PlayerState>),
        ("controlContextFields", fails::<String>),
    ];
    for (key, bad) in lists {
        let Some(items) = obj.get(key).and_then(Value::as_array) else { continue };
        for (i, item) in items.iter().enumerate() {
            if !bad(item) {
                continue;
            }
            let path = format!("$.{key}[{i}]");
            if key != "states" {
                return path;
            }
            return locate_state(item, path);
        }
    }
    "$".into()
}

fn locate_state(state: &Value, path: String) -> String {
    use super::types::*;
    let Some(obj) = state.as_object() else { return path };
    let members: [(&str, Probe); 7] = [
        ("id", fails::<String>),
        ("description", fails::<String>),
        ("sourceItem", fails::<String>),
        ("final", fails::<bool>),
        ("parallel", fails::<Vec<String>>),
        ("on", fails::<Vec<Value>>),
        ("output", fails::<Vec<Value>>),
    ];
    if let Some(at) = member(obj, &path, &members) {
        return at;
    }
    if let Some(invoke) = obj.get("invoke") {
        if fails::<Invoke>(invoke) {
            if let Some(results) = invoke.get("results").and_then(Value::as_array) {
                for (j, r) in results.iter().enumerate() {
                    if fails::<ResultSpec>(r) {
                        return format!("{path}.invoke.results[{j}]");
                    }
                }
            }
            return format!("{path}.invoke");
        }
    }
    let lists: [(&str, Probe); 3] =
        [("on", fails::<Transition>), ("output", fails::<OutputField>), ("tags", fails::<Tag>)];
    for (key, bad) in lists {
        let Some(items) = obj.get(key).and_then(Value::as_array) else { continue };
        if let Some(i) = items.iter().position(bad) {
            return format!("{path}.{key}[{i}]");
        }
    }
    path
}

/// The path of the first present member that does not deserialise as its type.
fn member(obj: &serde_json::Map<String, Value>, path: &str, probes: &[(&str, Probe)]) -> Option<String> {
    probes.iter().find(|(key, bad)| obj.get(*key).is_some_and(bad)).map(|(key, _)| format!("{path}.{key}"))
}
