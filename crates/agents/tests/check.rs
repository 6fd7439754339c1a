//! The `check` analyses on small machines: each finding kind, with its JSON path.

use serde_json::{json, Value};
use stagehand_agents::machine::{check, read_value, Finding, FindingKind};

fn machine(states: Value) -> Value {
    json!({"id": "m", "initial": "a", "states": states})
}

fn findings(v: Value) -> Vec<(FindingKind, String)> {
    let m = read_value(v).unwrap_or_else(|r| panic!("the machine must read: {r}"));
    check(&m).into_iter().map(|Finding { kind, path, .. }| (kind, path)).collect()
}

fn script(id: &str, on: Value) -> Value {
    json!({"id": id, "description": "Runs.", "invoke": {"kind": "script", "command": "true", "timeoutMs": 1000}, "on": on})
}

fn failed() -> Value {
    json!({"id": "failed", "description": "Failure.", "tags": ["parked"]})
}

#[test]
fn a_clean_chain_has_no_findings_except_a_dead_end_failure_state() {
    let v = machine(json!([
        script("a", json!([{"guard": "ok", "target": "z"}, {"guard": "failed", "target": "failed"}])),
        failed(),
        {"id": "z", "description": "End.", "final": true}
    ]));
    // `failed` has no way out: the error path is not a way to the final state.
    assert_eq!(findings(v), vec![(FindingKind::NoWayToFinal, "$.states[1]".into())]);
}

#[test]
fn reports_unreachable_states() {
    let v = machine(json!([
        script("a", json!([{"guard": "ok", "target": "z"}, {"guard": "failed", "target": "z"}])),
        {"id": "failed", "description": "Failure.", "on": [{"event": "GO", "target": "z"}]},
        script("island", json!([{"guard": "ok", "target": "z"}, {"guard": "failed", "target": "z"}])),
        {"id": "z", "description": "End.", "final": true}
    ]));
    let mut v = v;
    v["events"] = json!([{"type": "GO"}]);
    assert_eq!(findings(v), vec![(FindingKind::UnreachableState, "$.states[2]".into())]);
}

#[test]
fn reports_guards_never_taken_at_the_result() {
    let v = json!({"id": "m", "initial": "a", "states": [
        {"id": "a", "description": "Works.", "invoke": {"kind": "player", "player": "p", "prompt": "Go.", "results": [
            {"guard": "yes", "description": "Yes."}, {"guard": "no", "description": "No."}]},
         "on": [{"guard": "yes", "target": "z"}]},
        {"id": "awaitBossReply", "description": "Waits."},
        {"id": "failed", "description": "Failure.", "on": [{"event": "GO", "target": "a"}]},
        {"id": "z", "description": "End.", "final": true}
    ], "events": [{"type": "GO"}]});
    assert_eq!(findings(v), vec![(FindingKind::GuardNeverTaken, "$.states[0].invoke.results[1]".into())]);
}

#[test]
fn reports_a_script_result_never_taken_at_the_invoke() {
    let v = machine(json!([
        script("a", json!([{"guard": "ok", "target": "z"}])),
        {"id": "failed", "description": "Failure.", "on": [{"event": "GO", "target": "a"}]},
        {"id": "z", "description": "End.", "final": true}
    ]));
    let mut v = v;
    v["events"] = json!([{"type": "GO"}]);
    assert_eq!(findings(v), vec![(FindingKind::GuardNeverTaken, "$.states[0].invoke".into())]);
}

#[test]
fn reports_a_loop_with_no_way_out() {
    let v = machine(json!([
        script("a", json!([{"guard": "ok", "target": "b"}, {"guard": "failed", "target": "z"}])),
        script("b", json!([{"guard": "ok", "target": "a"}, {"guard": "failed", "target": "b"}])),
        {"id": "failed", "description": "Failure.", "on": [{"event": "GO", "target": "z"}]},
        {"id": "z", "description": "End.", "final": true}
    ]));
    let mut v = v;
    v["events"] = json!([{"type": "GO"}]);
    // `a` can still end; `b` only returns to `a`, which can end, so both are fine...
    assert_eq!(findings(v.clone()), vec![]);
    // ...until `a`'s way to the end is cut.
    v["states"][0]["on"][1]["target"] = json!("b");
    assert_eq!(
        findings(v),
        vec![(FindingKind::NoWayToFinal, "$.states[0]".into()), (FindingKind::NoWayToFinal, "$.states[1]".into())]
    );
}

#[test]
fn a_boss_interrupt_is_not_a_way_to_the_end_but_makes_its_target_reachable() {
    let mut v = machine(json!([
        {"id": "a", "description": "Idle.", "on": [{"event": "GO", "target": "a"}]},
        {"id": "z", "description": "End.", "final": true}
    ]));
    v["events"] = json!([{"type": "GO"}]);
    v["bossInterrupt"] = json!([{"target": "a"}]);
    // `z` is unreachable (only a final state is), and `a` never ends.
    assert_eq!(
        findings(v),
        vec![(FindingKind::NoWayToFinal, "$.states[0]".into()), (FindingKind::UnreachableState, "$.states[1]".into())]
    );
}

#[test]
fn parallel_members_are_reached_through_their_group_and_end_through_its_join() {
    let v = json!({"id": "m", "initial": "g", "states": [
        {"id": "g", "description": "Both.", "parallel": ["p1", "p2"], "on": [{"guard": "done", "target": "z"}]},
        {"id": "p1", "description": "One.", "invoke": {"kind": "player", "player": "one", "prompt": "Go."}},
        {"id": "p2", "description": "Two.", "invoke": {"kind": "player", "player": "two", "prompt": "Go."}},
        {"id": "awaitBossReply", "description": "Waits."},
        {"id": "failed", "description": "Failure.", "on": [{"event": "GO", "target": "g"}]},
        {"id": "z", "description": "End.", "final": true}
    ], "events": [{"type": "GO"}]});
    // Members' `done` is handled by the group's join, not by transitions of their own.
    assert_eq!(findings(v), vec![]);
}
