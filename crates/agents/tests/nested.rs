//! Nested calls beyond what the scenarios show: a dynamic call is refused before it starts when
//! its input text is blank (§2.3), as when its target is.

use serde_json::{json, Value};
use stagehand_agents::machine::read_json;
use stagehand_agents::runtime::{Emission, Next, Reply, Request, RunResult, Runtime, Session, Settled, Step};

/// The delegator with its dynamic call's text replaced by `text`.
fn delegator_with_text(text: Value) -> Runtime {
    let doc = include_str!("../../../conformance/agents/machines/delegator.json");
    let mut m: Value = serde_json::from_str(doc).expect("json");
    let states = m["states"].as_array_mut().expect("states");
    let dynamic = states.iter_mut().find(|s| s["id"] == "dynamic").expect("dynamic");
    dynamic["invoke"]["text"] = text;
    Runtime::new(read_json(&m.to_string()).expect("reads"), Default::default()).expect("runtime")
}

/// The step after the judge routes the Boss's turn to the dynamic call of `review`.
fn routed_to_review(text: Value) -> Step {
    let mut rt = delegator_with_text(text);
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    rt.handle_boss_input("send it to review", 2).expect("turn");
    let judged = json!({"type": "ROUTE", "target": "review"}).to_string();
    rt.answer(Reply::Judge { text: judged }, 3).expect("fits")
}

#[test]
fn a_dynamic_call_with_blank_text_is_refused_before_it_starts() {
    let step = routed_to_review(json!({"literal": " \n "}));
    assert!(
        !matches!(step.next, Next::Request { request: Request::Call { .. } }),
        "no nested call is made: {:?}",
        step.next
    );
    let started = step
        .emitted
        .iter()
        .any(|e| matches!(e, Emission::Trace { event } if event.trace_type == "playbook.call.started"));
    assert!(!started, "no playbook.call.started");
    match step.next {
        Next::Settled { settled: Settled::Run { result: Ok(RunResult::Failed { error, .. }) } } => {
            let error = error.expect("an error");
            assert_eq!(error.name, "PlaybookTargetError");
        }
        other => panic!("expected failed, got {other:?}"),
    }
}

#[test]
fn a_dynamic_call_with_text_still_starts() {
    let step = routed_to_review(json!({"literal": "look at PR 7"}));
    assert!(matches!(step.next, Next::Request { request: Request::Call { .. } }));
}
