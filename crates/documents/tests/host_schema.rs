//! The views, receipts and trace records a session produces fit the JSON Schemas documented
//! under `docs/schema/`: every key is one the schema names, every required key is there, and every
//! closed value is one the schema lists. (A small checker for the parts of JSON Schema these two
//! files use, so the documents and the code cannot drift apart unnoticed.)

mod host_support;

use host_support::*;
use serde_json::Value;
use stagehand_runner::RunnerEngine;
use stagehand_session::host::Session;

fn schema(name: &str) -> Value {
    let path = format!("{}/../../docs/schema/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))).expect(name)
}

/// Checks `value` against the object schema `schema` (properties, required, enum, const,
/// additionalProperties: false, items, local $ref, oneOf).
fn fits(value: &Value, schema: &Value, root: &Value) -> Result<(), String> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/$defs/");
        return fits(value, &root["$defs"][name], root);
    }
    if let Some(options) = schema["oneOf"].as_array() {
        let fitting = options.iter().filter(|o| fits(value, o, root).is_ok()).count();
        return if fitting == 1 { Ok(()) } else { Err(format!("{value} fits {fitting} of oneOf")) };
    }
    if let Some(allowed) = schema["enum"].as_array() {
        if !allowed.contains(value) {
            return Err(format!("{value} is not one of {allowed:?}"));
        }
    }
    if !schema["const"].is_null() && &schema["const"] != value {
        return Err(format!("{value} is not {}", schema["const"]));
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
                return Err(format!("{value} lacks {required}"));
            }
        }
        for (key, member) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(property) => fits(member, property, root)?,
                None if schema["additionalProperties"] == Value::Bool(false) => {
                    return Err(format!("{key} is not in the schema"))
                }
                None => {}
            }
        }
    }
    Ok(())
}

#[test]
fn views_receipts_and_trace_records_fit_their_schemas() {
    let view_schema = schema("view.schema.json");
    let trace_schema = schema("trace.schema.json");
    let receipt_schema = view_schema["$defs"]["receipt"].clone();
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    let mut receipts = Vec::new();
    let mut views = vec![session.describe()];
    receipts.push(session.apply("next", "k1", 2));
    views.push(session.describe());
    receipts.push(session.input("You.Rich", "maybe", "k2", 3));
    receipts.push(session.input("You.Rich", "no", "k2", 3));
    views.push(session.describe());
    receipts.push(session.apply("choose:0", "k3", 4));
    receipts.push(session.apply("next", "k4", 5));
    views.push(session.describe());
    receipts.push(session.apply("failed", "k5", 6));
    views.push(session.describe());
    session.dispose(7);
    for view in &views {
        let json = serde_json::to_value(view).unwrap();
        fits(&json, &view_schema, &view_schema).unwrap_or_else(|e| panic!("{e}: {json}"));
    }
    for receipt in &receipts {
        let json = serde_json::to_value(receipt).unwrap();
        fits(&json, &receipt_schema, &view_schema).unwrap_or_else(|e| panic!("{e}: {json}"));
    }
    for record in session.take_trace() {
        let json = serde_json::to_value(&record).unwrap();
        fits(&json, &trace_schema, &trace_schema).unwrap_or_else(|e| panic!("{e}: {json}"));
    }
}

/// An agent session's records, the runtime's among them (H48), fit the trace schema: each host
/// record one of the six, each engine record one of the sixteen with its schema-2 event.
#[test]
fn an_agent_sessions_records_fit_the_trace_schema() {
    use stagehand_agents::runtime::PlayerResult;
    use stagehand_documents::{Document, OpenOptions};
    use stagehand_protocol::{PortAnswer, PortCall};
    use stagehand_session::host::Pending;

    let trace_schema = schema("trace.schema.json");
    let machine = include_str!("../../../examples/agents/write-review-revise.toml");
    let document = Document::open("m.toml", machine.as_bytes(), &OpenOptions::default()).unwrap();
    let mut session = document.start("s", 0, 1).unwrap();
    session.input("task", "a poem", "task", 2);
    for n in 0..50 {
        let Pending::Call { call } = session.pending().clone() else { break };
        let answer = match &call {
            PortCall::Player { player_id, .. } if player_id == "reviewer" => {
                PortAnswer::Player { result: PlayerResult::ok("VERDICT: approved") }
            }
            PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok("a draft") },
            PortCall::Judge { prompt, .. } if prompt.contains("VERDICT") => {
                PortAnswer::Judge { text: r#"{"guard": "approved"}"#.into() }
            }
            _ => PortAnswer::Judge { text: r#"{"guard": "drafted"}"#.into() },
        };
        session.answer(answer, &format!("k{n}"), 3);
    }
    assert_eq!(session.pending(), &Pending::Ended);
    session.dispose(4);
    let records = session.take_trace();
    assert!(records.iter().filter(|r| r.engine).count() > 10, "the runtime's records are there");
    for record in records {
        let json = serde_json::to_value(&record).unwrap();
        fits(&json, &trace_schema, &trace_schema).unwrap_or_else(|e| panic!("{e}: {json}"));
    }
}
