//! `dispose` at every stage (CONTRACT.md §1.4): while `init` waits on its drain it waits for
//! the start and then tears down; a teardown that meets failures still ends the session and
//! settles with them (one error as itself, several aggregated), and every later `dispose`
//! settles the same way (one teardown, shared).

use serde_json::json;
use stagehand_agents::machine::read_json;
use stagehand_agents::runtime::{
    Emission, Next, NormalizedError, PlaybookCallStart, Reply, Request, Runtime, RuntimeError, Session, Settled, Step,
};

fn delegator() -> Runtime {
    let text = include_str!("../../../conformance/agents/machines/delegator.json");
    Runtime::new(read_json(text).expect("reads"), Default::default()).expect("runtime")
}

fn types(step: &Step) -> Vec<String> {
    step.emitted
        .iter()
        .filter_map(|e| match e {
            Emission::Trace { event } => Some(event.trace_type.clone()),
            _ => None,
        })
        .collect()
}

fn settled(step: &Step) -> Option<&Settled> {
    match &step.next {
        Next::Settled { settled } => Some(settled),
        Next::Request { .. } => None,
    }
}

fn disposed(result: Result<(), NormalizedError>) -> Settled {
    Settled::Disposed { result }
}

fn error(message: &str) -> NormalizedError {
    NormalizedError::from_value(&json!({"name": "Error", "message": message}))
}

/// Bound, with a nested call suspended on child `c`.
fn suspended() -> Runtime {
    let mut rt = delegator();
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    rt.handle_boss_input("review it", 2).expect("turn");
    rt.answer(Reply::Judge { text: json!({"type": "START"}).to_string() }, 3).expect("fits");
    rt.answer(Reply::Playbook { start: PlaybookCallStart::Suspended { child_session_id: "c".into() } }, 4)
        .expect("fits");
    rt
}

#[test]
fn a_dispose_while_init_waits_tears_down_once_the_start_is_drained() {
    let mut rt = delegator();
    let start = rt.init(Session::root("s", "delegator"), 1).expect("init");
    assert_eq!(types(&start), ["session.started"]);
    let joined = rt.dispose(2).expect("a dispose during init is not refused");
    assert!(joined.emitted.is_empty());
    assert!(matches!(joined.next, Next::Request { request: Request::Drain }), "it waits on init's drain");
    let step = rt.answer(Reply::Drained, 3).expect("fits");
    assert_eq!(types(&step), ["session.disposed"]);
    let step = match step.next {
        Next::Request { request: Request::Drain } => rt.answer(Reply::Drained, 4).expect("fits"),
        _ => step,
    };
    assert_eq!(settled(&step), Some(&disposed(Ok(()))));
    assert_eq!(rt.handle_boss_input("x", 5).expect_err("disposed"), RuntimeError::Disposed);
    assert_eq!(rt.init(Session::root("s", "delegator"), 6).expect_err("disposed"), RuntimeError::Disposed);
}

#[test]
fn a_dispose_while_a_failing_init_waits_leaves_nothing_more_to_tear_down() {
    let mut rt = delegator();
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.dispose(2).expect("joins");
    let step = rt.answer(Reply::SinkFailed { error: error("sink down") }, 3).expect("fits");
    // init's own cleanup: one best-effort session.disposed, the original error kept.
    assert_eq!(types(&step), ["session.disposed"]);
    assert!(matches!(settled(&step), Some(Settled::Init { result: Err(e) }) if e.message == "sink down"));
    assert_eq!(rt.init(Session::root("s", "delegator"), 4).expect_err("disposed"), RuntimeError::Disposed);
    let again = rt.dispose(5).expect("settles");
    assert!(again.emitted.is_empty());
    assert_eq!(settled(&again), Some(&disposed(Ok(()))));
}

#[test]
fn a_child_that_fails_to_dispose_is_reported_after_the_session_ends() {
    let mut rt = suspended();
    rt.dispose(5).expect("disposes");
    let step = rt.answer(Reply::Threw { error: error("child stuck") }, 6).expect("fits");
    assert_eq!(types(&step), ["playbook.call.finished", "session.disposed"]);
    let step = match step.next {
        Next::Request { request: Request::Drain } => rt.answer(Reply::Drained, 7).expect("fits"),
        _ => step,
    };
    assert_eq!(settled(&step), Some(&disposed(Err(error("child stuck")))));
    assert_eq!(rt.handle_boss_input("x", 8).expect_err("disposed"), RuntimeError::Disposed);
    let again = rt.dispose(9).expect("the same teardown");
    assert_eq!(settled(&again), Some(&disposed(Err(error("child stuck")))));
}

#[test]
fn a_sink_that_refuses_session_disposed_fails_the_dispose() {
    let mut rt = delegator();
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    let step = rt.dispose(2).expect("disposes");
    assert_eq!(types(&step), ["session.disposed"]);
    assert!(matches!(step.next, Next::Request { request: Request::Drain }), "session.disposed is drained");
    let step = rt.answer(Reply::SinkFailed { error: error("sink down") }, 3).expect("fits");
    assert_eq!(settled(&step), Some(&disposed(Err(error("sink down")))));
    assert!(rt.describe().is_err(), "the session ended all the same");
}

#[test]
fn several_disposal_failures_are_aggregated() {
    let mut rt = suspended();
    rt.dispose(5).expect("disposes");
    rt.answer(Reply::Threw { error: error("child stuck") }, 6).expect("fits");
    let step = rt.answer(Reply::SinkFailed { error: error("sink down") }, 7).expect("fits");
    let Some(Settled::Disposed { result: Err(e) }) = settled(&step) else { panic!("{:?}", step.next) };
    assert_eq!(e.name, "AggregateError");
    assert!(e.message.starts_with("playbook runtime disposal failed"), "{}", e.message);
    assert!(e.message.contains("child stuck") && e.message.contains("sink down"), "{}", e.message);
}
