//! Lifecycle details the scenario log does not show: the identity a nested call's finish
//! repeats when the call is resumed or disposed, and the descriptor `session.disposed` carries.

use serde_json::{json, Value};
use stagehand_agents::machine::read_json;
use stagehand_agents::runtime::{
    Emission, Next, PlaybookCallResult, PlaybookCallStart, Reply, Runtime, Session, Settled, Step,
};

fn delegator() -> Runtime {
    let text = include_str!("../../../conformance/agents/machines/delegator.json");
    Runtime::new(read_json(text).expect("reads"), Default::default()).expect("runtime")
}

/// A delegator suspended on its fixed child `review`, with the `playbook.call.started` payload.
fn suspended() -> (Runtime, Value) {
    let mut rt = delegator();
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    rt.handle_boss_input("review it", 2).expect("turn");
    let step = rt.answer(Reply::Judge { text: json!({"type": "START"}).to_string() }, 3).expect("fits");
    let started = payload_of(&step, "playbook.call.started").expect("the call started");
    rt.answer(Reply::Playbook { start: PlaybookCallStart::Suspended { child_session_id: "c".into() } }, 4)
        .expect("fits");
    (rt, started)
}

/// The writer, initialised, with a Boss turn begun on `text` (waiting on its player).
fn writer_turn(text: &str) -> Runtime {
    let doc = include_str!("../../../conformance/agents/machines/writer.json");
    let mut rt = Runtime::new(read_json(doc).expect("reads"), Default::default()).expect("runtime");
    rt.init(Session::root("s", "writer"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    rt.handle_boss_input(text, 2).expect("turn");
    rt
}

/// A player result `error` with this message.
fn player_error(message: &str) -> stagehand_agents::runtime::PlayerResult {
    stagehand_agents::runtime::PlayerResult {
        status: stagehand_protocol::port::CallStatus::Error,
        resume_token: None,
        final_text: None,
        error: Some(message.into()),
    }
}

fn payload_of(step: &Step, trace_type: &str) -> Option<Value> {
    step.emitted.iter().find_map(|e| match e {
        Emission::Trace { event } if event.trace_type == trace_type => Some(event.payload.clone()),
        _ => None,
    })
}

/// A finish's identity: its payload without the result.
fn identity(payload: &Value) -> Value {
    let mut p = payload.as_object().cloned().unwrap_or_default();
    p.remove("result");
    Value::Object(p)
}

#[test]
fn a_resumed_call_finishes_with_the_identity_it_started_with() {
    let (mut rt, started) = suspended();
    assert_eq!(started["text"], "review it");
    let result = PlaybookCallResult::Ok {
        child_session_id: "c".into(),
        state: None,
        output: Some(json!({"guard": "approved", "summary": "s"})),
    };
    let step = rt.resume_playbook_call("playbook-1", result, 5).expect("resumes");
    let finished = payload_of(&step, "playbook.call.finished").expect("the call finished");
    assert_eq!(identity(&finished), started);
    assert_eq!(finished["result"]["status"], "ok");
}

#[test]
fn a_call_finished_by_dispose_repeats_the_identity_it_started_with() {
    let (mut rt, started) = suspended();
    let step = rt.dispose(5).expect("disposes");
    assert!(matches!(step.next, Next::Request { .. }), "the child is disposed first");
    let step = rt.answer(Reply::Drained, 6).expect("fits");
    let finished = payload_of(&step, "playbook.call.finished").expect("the call finished");
    assert_eq!(identity(&finished), started);
    assert_eq!(finished["result"]["status"], "aborted");
}

#[test]
fn session_disposed_carries_the_descriptor_the_session_ended_in() {
    // §1.4: dispose stops the actor with inspection suppressed and emits `session.disposed`
    // with the final descriptor — the state the session was in, not the stopped actor's.
    let mut rt = delegator();
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    let before = serde_json::to_value(rt.state()).expect("serialises");
    let step = rt.dispose(2).expect("disposes");
    let disposed = payload_of(&step, "session.disposed").expect("session.disposed");
    let step = rt.answer(Reply::Drained, 3).expect("session.disposed is drained");
    assert!(matches!(step.next, Next::Settled { settled: Settled::Disposed { result: Ok(()) } }));
    assert_eq!(disposed["state"], before);
    assert_eq!(disposed["state"]["status"], "active");
    assert_eq!(disposed["stateId"], "ready");
}

#[test]
fn the_failure_status_carries_the_error_as_its_data() {
    // §1.7: status.emitted carries `data?`; the failure line's data is `{lastError}`.
    let mut rt = writer_turn("rain");
    let failed = player_error("boom");
    let step = rt.answer(Reply::Player { result: failed }, 3).expect("fits");
    let expected = json!({"lastError": {"name": "Error", "message": "boom"}});
    let status = step.emitted.iter().find_map(|e| match e {
        Emission::Status { message, data } if message.contains("Workflow failed") => Some(data.clone()),
        _ => None,
    });
    assert_eq!(status, Some(Some(expected.clone())), "the status itself");
    let trace = step.emitted.iter().find_map(|e| match e {
        Emission::Trace { event } if event.trace_type == "status.emitted" => Some(event.payload.clone()),
        _ => None,
    });
    let trace = trace.expect("a status.emitted");
    assert_eq!(trace["message"], "Workflow failed; awaiting Boss recovery.");
    assert_eq!(trace["data"], expected, "its trace");
}

#[test]
fn a_transition_names_its_question_and_its_error_as_the_context_does() {
    // §1.7: fsm.transition carries any pending question and, into failure, the normalised
    // error, under the context's names `pendingBossQuestion` and `lastError`.
    let mut rt = writer_turn("rain");
    let ask = stagehand_agents::runtime::PlayerResult::ok("Tone?");
    rt.answer(Reply::Player { result: ask }, 3).expect("fits");
    let judged = json!({"guard": "needsBossReply", "question": "Tone?"}).to_string();
    let step = rt.answer(Reply::Judge { text: judged }, 4).expect("fits");
    let moved = payload_of(&step, "fsm.transition").expect("a transition");
    assert_eq!(moved["to"], "awaitBossReply");
    assert_eq!(
        moved["pendingBossQuestion"],
        json!({"questionId": "write", "resumeStateId": "write", "sourceItem": "WRITE-1", "player": "writer", "question": "Tone?"})
    );
    rt.handle_boss_input("gloomy", 5).expect("turn");
    rt.answer(Reply::Judge { text: json!({"type": "BOSS_REPLY"}).to_string() }, 6).expect("fits");
    let failed = player_error("boom");
    let step = rt.answer(Reply::Player { result: failed }, 7).expect("fits");
    let moved = payload_of(&step, "fsm.transition").expect("a transition");
    assert_eq!(moved["to"], "failed");
    assert_eq!(moved["lastError"], json!({"name": "Error", "message": "boom"}));
    assert!(moved.get("pendingBossQuestion").is_none());
}

/// The sequence of every trace event a step emitted.
fn sequences(step: &Step) -> Vec<u64> {
    step.emitted
        .iter()
        .filter_map(|e| match e {
            Emission::Trace { event } => Some(event.sequence),
            _ => None,
        })
        .collect()
}

#[test]
fn a_fresh_init_continues_the_trace_of_its_own_session_and_starts_another_at_one() {
    let doc = include_str!("../../../conformance/agents/machines/writer.json");
    let failed_init = |rt: &mut Runtime| {
        let started = rt.init(Session::root("s", "writer"), 1).expect("init");
        let sink_down = stagehand_protocol::port::NormalizedError::new("trace sink down");
        let failed = rt.answer(Reply::SinkFailed { error: sink_down }, 1).expect("fits");
        (sequences(&started), sequences(&failed))
    };
    // The same session again: its trace goes on (1 started, 2 disposed, 3 started).
    let mut rt = Runtime::new(read_json(doc).expect("reads"), Default::default()).expect("runtime");
    let (started, disposed) = failed_init(&mut rt);
    assert_eq!([started, disposed].concat(), [1, 2]);
    assert_eq!(sequences(&rt.init(Session::root("s", "writer"), 2).expect("init")), [3]);
    // Another session: its own trace starts at 1 (§1.7, "starting at 1 within the session").
    let mut rt = Runtime::new(read_json(doc).expect("reads"), Default::default()).expect("runtime");
    failed_init(&mut rt);
    assert_eq!(sequences(&rt.init(Session::root("t", "writer"), 2).expect("init")), [1]);
}

#[test]
fn a_session_bound_where_it_ended_ends_with_its_final_descriptor_numbered_on() {
    // A50: bound again at its final state, the session's dispose emits only session.disposed,
    // numbered after the last record it had traced, with the final state's descriptor.
    let mut rt = delegator();
    assert!(rt.restore_ended(Session::root("s", "delegator"), "ready", 7).is_err(), "ready is not final");
    assert!(rt.restore_ended(Session::root("s", "delegator"), "nowhere", 7).is_err());
    rt.restore_ended(Session::root("s", "delegator"), "done", 7).expect("done is final");
    assert!(rt.restore_ended(Session::root("s", "delegator"), "done", 7).is_err(), "bound once");
    let step = rt.dispose(9).expect("dispose");
    let traced: Vec<_> = step
        .emitted
        .iter()
        .filter_map(|e| match e {
            Emission::Trace { event } => Some(event),
            _ => None,
        })
        .collect();
    assert_eq!(traced.len(), 1, "{traced:?}");
    assert_eq!((traced[0].trace_type.as_str(), traced[0].sequence), ("session.disposed", 8));
    assert_eq!(traced[0].payload["stateId"], "done");
    assert_eq!(traced[0].payload["state"]["status"], "done");
}
