//! An agent session's trace holds the runtime's own schema-2 records (decisions H48, A32): each
//! a record of its own, typed as the runtime spells it, its payload the runtime's event with the
//! runtime's ids, in the runtime's order, inside the host boundary (`apply.*`, `input.*`) of the
//! move that caused it; the host sequence stays contiguous, every start has one finish, and a
//! restore continues the sequence with no `session.started` of either kind.

mod agent_support;

use std::collections::BTreeMap;

use agent_support::{open, ports};
use stagehand_agents::runtime::TRACE_TYPES;
use stagehand_protocol::Receipt;
use stagehand_session::host::{AnySession, Pending, TraceRecord, TraceType};

/// Answers port calls until the session waits on something else.
fn answer_all(session: &mut dyn AnySession, prefix: &str, reviewer_fails: bool) {
    for n in 0..50 {
        let Pending::Call { call } = session.pending().clone() else { return };
        match session.answer(ports(&call, reviewer_fails), &format!("{prefix}{n}"), 10 + n) {
            Receipt::Executed { .. } | Receipt::Failed { .. } => {}
            Receipt::Rejected { reason } => panic!("{reason}"),
        }
    }
    panic!("the ports were still called after 50 answers");
}

/// Checks a whole trace (from `first`, the sequence its first record must have): contiguous
/// host sequences; host boundaries properly nested, one at a time, each start finished once by
/// the same call id; every engine record a schema-2 event of one of the sixteen types, its
/// payload's `type` its own, the runtime's sequence contiguous from `engine_first`, and, after
/// the opening and before the closing (what it traced as it was disposed), inside a host boundary; every engine `*.started` finished once by the same
/// runtime call id. The engine records' types, in order.
fn check(trace: &[TraceRecord], first: u64, engine_first: u64) -> Vec<String> {
    let mut open: Option<(TraceType, String)> = None;
    let mut engine_open: BTreeMap<String, String> = BTreeMap::new();
    let mut engine_sequence = engine_first;
    let mut boundaries = 0;
    let mut types = Vec::new();
    // What the engine traced as it ended stands right before the host's session.disposed, in
    // no boundary (H70).
    let closing_from = match trace.last() {
        Some(last) if !last.engine && last.kind == "session.disposed" => {
            trace[..trace.len() - 1].iter().rposition(|r| !r.engine).map_or(0, |i| i + 1)
        }
        _ => trace.len(),
    };
    for (i, record) in trace.iter().enumerate() {
        assert_eq!(record.sequence, first + i as u64, "contiguous host sequences: {record:?}");
        if record.engine {
            assert_eq!(record.trace_type(), None, "an engine record is none of the host's types");
            assert!(TRACE_TYPES.contains(&record.kind.as_str()), "one of the sixteen: {}", record.kind);
            assert!(record.call_id.is_none(), "the runtime's ids are in the payload: {record:?}");
            let event = &record.payload;
            assert_eq!(event["schemaVersion"], 2, "{event}");
            assert_eq!(event["type"], record.kind.as_str(), "{event}");
            assert_eq!(event["sessionId"], "s", "{event}");
            assert_eq!(event["sequence"], engine_sequence, "the runtime's order: {event}");
            assert_eq!(event["timestamp"], record.timestamp, "stamped with its move's time: {event}");
            engine_sequence += 1;
            // After the opening and before the closing, every engine record stands inside the
            // move that caused it.
            assert!(open.is_some() || boundaries == 0 || i >= closing_from, "{} outside a host boundary", record.kind);
            let call = event["callId"].as_str().unwrap_or("").to_owned();
            if let Some(start) = record.kind.strip_suffix(".started").filter(|_| record.kind != "session.started") {
                assert!(!call.is_empty(), "a call's start has a call id: {event}");
                assert!(engine_open.insert(call, start.to_owned()).is_none(), "one start per call id");
            } else if let Some(finish) = record.kind.strip_suffix(".finished") {
                assert_eq!(engine_open.remove(&call).as_deref(), Some(finish), "{} finishes its start", record.kind);
            }
            types.push(record.kind.clone());
            continue;
        }
        let kind = record.trace_type().expect("a host type");
        let call = record.call_id.clone().unwrap_or_default();
        match kind {
            TraceType::ApplyStarted | TraceType::InputReceived => {
                assert!(open.is_none(), "one host boundary at a time: {record:?}");
                open = Some((kind, call));
                boundaries += 1;
            }
            TraceType::ApplyFinished | TraceType::InputSettled => {
                let (start, started) = open.take().expect("a finish closes an open boundary");
                assert_eq!((start.finish(), started), (Some(kind), call), "the finish of its start");
            }
            TraceType::SessionStarted => assert_eq!(i, 0, "session.started first"),
            TraceType::SessionDisposed => assert_eq!(i, trace.len() - 1, "session.disposed last"),
        }
    }
    assert!(open.is_none(), "every host boundary finished: {open:?}");
    assert!(engine_open.is_empty(), "every engine start finished: {engine_open:?}");
    types
}

#[test]
fn an_agent_sessions_trace_holds_the_runtimes_records_inside_their_moves() {
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    let receipt = session.input("task", "a poem", "task", 2);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    answer_all(session.as_mut(), "k", false);
    assert_eq!(session.pending(), &Pending::Ended);
    session.dispose(99);
    let trace = session.take_trace();
    let types = check(&trace, 1, 1);

    // The host's session.started opens; the runtime's init follows it, in no boundary.
    assert_eq!((trace[0].kind.as_str(), trace[0].engine), ("session.started", false));
    assert_eq!((trace[1].kind.as_str(), trace[1].engine), ("session.started", true));
    // The Boss's task: received, the writer called, all inside the input's pair.
    let input = trace.iter().position(|r| r.kind == "input.received").unwrap();
    assert!(trace[input + 1].engine && trace[input + 1].kind == "boss.input.received", "{:?}", trace[input + 1]);
    assert_eq!(trace[input + 1].payload["payload"]["text"], "a poem", "the exact Boss text");
    let settled = trace.iter().position(|r| r.kind == "input.settled").unwrap();
    assert!(trace[input + 1..settled].iter().all(|r| r.engine), "only the runtime's records between");
    assert!(trace[input..settled].iter().any(|r| r.kind == "player.call.started"), "the writer is called");
    // Each port answer's apply holds the call's finish.
    let finish = trace.iter().position(|r| r.kind == "player.call.finished").unwrap();
    let before = trace[..finish].iter().rev().find(|r| !r.engine).unwrap();
    assert_eq!(before.kind, "apply.started");
    assert!(before.payload["actionId"].as_str().unwrap().starts_with("answer:player-"), "{before:?}");
    for kind in ["player.call.started", "player.call.finished", "judge.call.started", "judge.call.finished"] {
        assert!(types.iter().any(|t| t == kind), "{kind} in {types:?}");
    }
    for kind in ["fsm.transition", "status.emitted", "boss.input.received", "boss.input.settled"] {
        assert!(types.iter().any(|t| t == kind), "{kind} in {types:?}");
    }
    // The JSON lines say the same, marked as the engine's.
    let mut again = document.start("s", 0, 1).unwrap();
    let first = again.take_trace();
    assert!(first[1].to_json_line().contains(r#""type":"session.started","engine":true,"payload":{"schemaVersion":2"#));
}

#[test]
fn a_restore_continues_the_trace_with_no_session_started() {
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    session.input("task", "a poem", "task", 2);
    answer_all(session.as_mut(), "k", true);
    assert_eq!(session.describe().state_id, "failed");
    let before = session.take_trace();
    let types = check(&before, 1, 1);
    let last = before.last().unwrap().sequence;
    let engine_last = before.iter().rev().find(|r| r.engine).unwrap().payload["sequence"].as_u64().unwrap();
    assert!(types.iter().any(|t| t == "player.call.finished"));

    let snapshot = session.snapshot_value().unwrap();
    let mut restored = document.restore(snapshot).unwrap();
    assert!(restored.take_trace().is_empty(), "a restore traces nothing");
    // Retry through the engine's own action: the runtime's apply pair inside the host's.
    let receipt = restored.apply("retry:START", "again", 4);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    answer_all(restored.as_mut(), "r", false);
    assert_eq!(restored.pending(), &Pending::Ended);
    let after = restored.take_trace();
    let types = check(&after, last + 1, engine_last + 1);
    assert!(after.iter().all(|r| r.kind != "session.started"), "no session.started of either kind");
    assert_eq!((after[0].kind.as_str(), after[0].engine), ("apply.started", false));
    assert_eq!((after[1].kind.as_str(), after[1].engine), ("apply.started", true), "{:?}", after[1]);
    assert_eq!(after[1].payload["payload"]["actionId"], "retry:START", "{:?}", after[1]);
    assert!(types.iter().any(|t| t == "apply.finished"), "{types:?}");
    assert!(types.iter().any(|t| t == "player.call.started"), "{types:?}");
    // A replayed key traces nothing, of the host's or the engine's.
    restored.apply("retry:START", "again", 5);
    assert!(restored.take_trace().is_empty());
}

/// The session's records from the host's `session.disposed` back to the last host record
/// before it: the engine's closing records.
fn closing(trace: &[TraceRecord]) -> &[TraceRecord] {
    let last = trace.len() - 1;
    let from = trace[..last].iter().rposition(|r| !r.engine).map_or(0, |i| i + 1);
    &trace[from..last]
}

#[test]
fn the_hosts_dispose_disposes_the_runtime_once() {
    // §1.4: session.disposed means the session really ended; the host's dispose ends the
    // runtime's session too, so the runtime's own session.disposed is in the trace, once,
    // right before the host's (the closing counterpart of H48's opening).
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    session.input("task", "a poem", "task", 2);
    answer_all(session.as_mut(), "k", false);
    session.dispose(99);
    session.dispose(100);
    let trace = session.take_trace();
    check(&trace, 1, 1);
    let disposed: Vec<_> = trace.iter().filter(|r| r.kind == "session.disposed").collect();
    assert_eq!(disposed.len(), 2, "one of the runtime's, one of the host's: {disposed:?}");
    assert_eq!(disposed.iter().filter(|r| !r.engine).count(), 1, "the host's, once");
    let end = closing(&trace);
    assert_eq!(end.len(), 1, "{end:?}");
    assert_eq!((end[0].kind.as_str(), end[0].timestamp), ("session.disposed", 99));
    let host = trace.last().unwrap();
    assert_eq!(end[0].payload["payload"]["stateId"], host.payload["stateId"], "where the run ended");
    assert!(session.take_trace().is_empty(), "a second dispose traces nothing");
}

#[test]
fn the_hosts_dispose_ends_a_call_left_outstanding() {
    // The host disposes while the writer's call is outstanding: the runtime's turn is aborted
    // (its pairs finished, its turn settled `aborted`), then its session ends.
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    session.input("task", "a poem", "task", 2);
    assert!(matches!(session.pending(), Pending::Call { .. }), "{:?}", session.pending());
    session.dispose(50);
    let trace = session.take_trace();
    check(&trace, 1, 1);
    let kinds: Vec<&str> = closing(&trace).iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"player.call.finished"), "{kinds:?}");
    assert_eq!(closing(&trace)[0].payload["payload"]["status"], "aborted");
    assert!(kinds.contains(&"boss.input.settled"), "{kinds:?}");
    assert_eq!(kinds.last(), Some(&"session.disposed"), "{kinds:?}");
}

#[test]
fn a_disposed_agent_session_still_has_a_snapshot() {
    // A host may keep a disposed session (its snapshot says so); disposing the runtime (H70)
    // must not take that away, and the restored session reads back where it ended.
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    session.input("task", "a poem", "task", 2);
    answer_all(session.as_mut(), "k", false);
    let at = session.describe().state_id;
    session.dispose(99);
    let snapshot = session.snapshot_value().expect("a disposed session has a snapshot");
    let restored = document.restore(snapshot).expect("and restores");
    assert!(restored.is_disposed());
    assert_eq!(restored.describe().state_id, at);
}

#[test]
fn a_session_restored_where_it_ended_ends_the_runtimes_session_as_in_process() {
    // H70 and A50: a session that ended at a final state and was kept ends the runtime's
    // session when it is disposed after a restore, as it does in process: the runtime's one
    // session.disposed, with the same payload, right before the host's, numbered on.
    let document = open();
    let mut kept = document.start("s", 0, 1).unwrap();
    kept.input("task", "a poem", "task", 2);
    answer_all(kept.as_mut(), "k", false);
    let mut in_process = document.start("s", 0, 1).unwrap();
    in_process.input("task", "a poem", "task", 2);
    answer_all(in_process.as_mut(), "k", false);
    let before = kept.take_trace();
    let snapshot = kept.snapshot_value().expect("an ended session has a snapshot");
    let mut restored = document.restore(snapshot).expect("it restores");
    restored.dispose(99);
    in_process.dispose(99);
    let after = restored.take_trace();
    let whole = in_process.take_trace();
    assert_eq!(before.len() + after.len(), whole.len(), "{after:?}");
    let mut trace = before;
    trace.extend(after);
    check(&trace, 1, 1);
    let (end, expected) = (closing(&trace), closing(&whole));
    assert_eq!(end.len(), 1, "the runtime's session.disposed: {end:?}");
    assert_eq!(end, expected, "as in process");
}
