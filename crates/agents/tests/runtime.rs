//! The runtime's host API beyond what the scenarios script: answers that do not fit, the
//! order of a step's emissions, the wire spellings of its values, and determinism.

use serde_json::json;
use stagehand_agents::machine::read_json;
use stagehand_agents::runtime::{
    Emission, Next, PlaybookCallResult, PlayerResult, PortCall, Reply, Request, RunResult, Runtime, RuntimeError,
    Session, Settled, Step, TRACE_TYPES,
};

fn writer() -> Runtime {
    let text = include_str!("../../../conformance/agents/machines/writer.json");
    Runtime::new(read_json(text).expect("writer reads"), Default::default()).expect("a runtime")
}

fn init(rt: &mut Runtime) {
    let step = rt.init(Session::root("s", "writer"), 1).expect("init");
    assert!(matches!(step.next, Next::Request { request: Request::Drain }));
    rt.answer(Reply::Drained, 1).expect("drained");
}

fn call(step: &Step) -> &PortCall {
    match &step.next {
        Next::Request { request: Request::Call { call } } => call,
        other => panic!("expected a port call, got {other:?}"),
    }
}

#[test]
fn an_answer_must_fit_the_request_and_one_must_be_waiting() {
    let mut rt = writer();
    assert_eq!(rt.answer(Reply::Drained, 1), Err(RuntimeError::NothingWaiting));
    init(&mut rt);
    assert_eq!(rt.answer(Reply::Drained, 1), Err(RuntimeError::NothingWaiting));
    let step = rt.handle_boss_input("rain", 2).expect("a turn");
    assert!(matches!(call(&step), PortCall::Player { .. }));
    // A judge reply does not answer a player call, and nothing changes.
    assert_eq!(rt.answer(Reply::Judge { text: "{}".into() }, 3), Err(RuntimeError::WrongReply));
    assert_eq!(rt.answer(Reply::Script { exit_code: Some(0) }, 3), Err(RuntimeError::WrongReply));
    let step = rt.answer(Reply::Player { result: PlayerResult::ok("A poem.") }, 3).expect("fits");
    assert!(matches!(call(&step), PortCall::Judge { .. }));
    let step = rt.answer(Reply::Judge { text: json!({"guard": "written"}).to_string() }, 4).expect("fits");
    match step.next {
        Next::Settled { settled: Settled::Run { result: Ok(RunResult::Terminal { output, .. }) } } => {
            assert_eq!(output, Some(json!({"text": "A poem.", "rounds": 0})));
        }
        other => panic!("expected terminal, got {other:?}"),
    }
}

#[test]
fn each_emission_is_handed_out_once_and_stamped_with_the_hosts_time() {
    let mut rt = writer();
    init(&mut rt);
    let first = rt.handle_boss_input("rain", 500).expect("a turn");
    let second = rt.answer(Reply::Player { result: PlayerResult::ok("A poem.") }, 700).expect("fits");
    let traces = |s: &Step| -> Vec<(u64, u64, String)> {
        s.emitted
            .iter()
            .filter_map(|e| match e {
                Emission::Trace { event } => Some((event.sequence, event.timestamp, event.trace_type.clone())),
                _ => None,
            })
            .collect()
    };
    let a = traces(&first);
    let b = traces(&second);
    assert_eq!(a.first().map(|t| (t.0, t.1)), Some((2, 500)), "session.started was 1");
    assert_eq!(a.last().map(|t| t.2.as_str()), Some("player.call.started"));
    assert_eq!(b.first().map(|t| (t.0, t.1, t.2.as_str())), Some((a.len() as u64 + 2, 700, "player.call.finished")));
    assert!(a.iter().chain(&b).all(|t| TRACE_TYPES.contains(&t.2.as_str())));
}

#[test]
fn boss_input_and_apply_wait_while_a_nested_call_is_pending() {
    let text = include_str!("../../../conformance/agents/machines/delegator.json");
    let mut rt = Runtime::new(read_json(text).expect("reads"), Default::default()).expect("runtime");
    rt.init(Session::root("s", "delegator"), 1).expect("init");
    rt.answer(Reply::Drained, 1).expect("drained");
    rt.handle_boss_input("review it", 2).expect("turn");
    rt.answer(Reply::Judge { text: json!({"type": "START"}).to_string() }, 3).expect("fits");
    let step = rt
        .answer(
            Reply::Playbook {
                start: stagehand_agents::runtime::PlaybookCallStart::Suspended { child_session_id: "c".into() },
            },
            4,
        )
        .expect("fits");
    assert!(matches!(step.next, Next::Settled { settled: Settled::Run { result: Ok(RunResult::Suspended { .. }) } }));
    assert_eq!(rt.handle_boss_input("more", 5).err(), Some(RuntimeError::Suspended));
    assert_eq!(rt.apply("jump:x", "k", 5).err(), Some(RuntimeError::Suspended));
    let result = PlaybookCallResult::Ok {
        child_session_id: "c".into(),
        state: None,
        output: Some(json!({"guard": "approved", "summary": "s"})),
    };
    let step = rt.resume_playbook_call("playbook-1", result, 6).expect("resumes");
    assert!(matches!(step.next, Next::Settled { settled: Settled::Run { result: Ok(RunResult::Terminal { .. }) } }));
}

#[test]
fn the_same_session_played_twice_emits_the_same_values() {
    let play = || {
        let mut rt = writer();
        init(&mut rt);
        let mut out = rt.handle_boss_input("rain", 2).expect("turn").emitted;
        out.extend(rt.answer(Reply::Player { result: PlayerResult::ok("d") }, 3).expect("fits").emitted);
        out.extend(rt.answer(Reply::Judge { text: "{\"guard\":\"draft\"}".into() }, 4).expect("fits").emitted);
        out.extend(rt.answer(Reply::Abort, 5).expect("fits").emitted);
        (out, rt.state())
    };
    assert_eq!(play(), play());
}

#[test]
fn run_results_and_receipts_spell_the_contract() {
    let mut rt = writer();
    init(&mut rt);
    let step = rt.handle_boss_input("", 2).expect("turn");
    let Next::Settled { settled: Settled::Run { result: Ok(result) } } = step.next else { panic!("settled") };
    let v = serde_json::to_value(&result).expect("serialises");
    assert_eq!(v["outcome"], "no-action");
    assert_eq!(v["state"]["activeStateIds"], json!(["ready"]));
    assert_eq!(v["state"]["stateId"], "ready");
    assert_eq!(v["state"]["tags"], json!(["playbook.parked"]));
    let receipt = stagehand_agents::runtime::Receipt::Rejected { reason: "no".into() };
    assert_eq!(serde_json::to_value(receipt).expect("serialises"), json!({"disposition": "rejected", "reason": "no"}));
    let snap = rt.export_snapshot().expect("a safe point");
    let v = serde_json::to_value(&snap).expect("serialises");
    assert_eq!(v["schemaVersion"], 1);
    assert_eq!(
        v["sequences"],
        json!({"trace": 3, "turn": 1, "judgeCall": 0, "playerCall": 0, "playbookCall": 0, "captainCall": 0, "applyCall": 0})
    );
}
