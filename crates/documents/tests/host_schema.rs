//! The views, receipts and trace records a session produces fit the JSON Schemas documented
//! under `docs/schema/`: every key is one the schema names, every required key is there, and every
//! closed value is one the schema lists (checked by `schema_support`).

mod host_support;
mod schema_support;

use host_support::*;
use schema_support::{fits, schema};
use stagehand_runner::RunnerEngine;
use stagehand_session::host::Session;

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
