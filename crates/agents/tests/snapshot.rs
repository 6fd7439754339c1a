//! The snapshot's public shape (CONTRACT.md §1.8): `sequences` holds the contract's counters
//! and nothing else — `captainCall` only for a machine with a Captain state, no apply counter
//! (the runtime keeps that in its opaque `machine` member) — and restore refuses any other key.

use serde_json::{json, Value};
use stagehand_agents::machine::read_json;
use stagehand_agents::runtime::{parse_snapshot, Next, Reply, Request, Runtime, Session};

fn runtime(text: &str) -> Runtime {
    Runtime::new(read_json(text).expect("the machine reads"), Default::default()).expect("a runtime")
}

fn writer() -> Runtime {
    runtime(include_str!("../../../conformance/agents/machines/writer.json"))
}

fn planner() -> Runtime {
    runtime(include_str!("../../../conformance/agents/machines/planner.json"))
}

fn started(mut rt: Runtime, playbook: &str) -> Runtime {
    let step = rt.init(Session::root("s", playbook), 1).expect("init");
    assert!(matches!(step.next, Next::Request { request: Request::Drain }));
    rt.answer(Reply::Drained, 1).expect("drained");
    rt
}

fn sequences(rt: &Runtime) -> Value {
    let snapshot = rt.export_snapshot().expect("a safe point");
    serde_json::to_value(&snapshot).expect("serialises")["sequences"].clone()
}

#[test]
fn a_machine_without_a_captain_state_writes_no_captain_counter() {
    let rt = started(writer(), "writer");
    assert_eq!(sequences(&rt), json!({"trace": 1, "turn": 0, "judgeCall": 0, "playerCall": 0, "playbookCall": 0}));
}

#[test]
fn a_machine_with_a_captain_state_writes_its_captain_counter() {
    let rt = started(planner(), "planner");
    assert_eq!(
        sequences(&rt),
        json!({"trace": 1, "turn": 0, "judgeCall": 0, "playerCall": 0, "playbookCall": 0, "captainCall": 0})
    );
}

#[test]
fn restore_refuses_a_counter_the_contract_does_not_have() {
    let rt = started(writer(), "writer");
    let mut v = serde_json::to_value(rt.export_snapshot().expect("a safe point")).expect("serialises");
    v["sequences"]["applyCall"] = json!(2);
    assert!(parse_snapshot(&v.to_string()).is_err(), "an unknown key in sequences is refused");
}

#[test]
fn a_snapshot_without_the_captain_counter_restores_with_the_trace_as_its_floor() {
    let rt = started(planner(), "planner");
    let mut v = serde_json::to_value(rt.export_snapshot().expect("a safe point")).expect("serialises");
    v["sequences"].as_object_mut().expect("an object").remove("captainCall");
    let snapshot = parse_snapshot(&v.to_string()).expect("still a snapshot");
    let mut fresh = planner();
    fresh.restore(Session::root("s", "planner"), &snapshot).expect("restores");
    assert_eq!(fresh.sequences().captain_call, Some(1));
}
