//! The runtime's host API beyond what the scenarios script: answers that do not fit, the
//! order of a step's emissions, the wire spellings of its values, and determinism.

use serde_json::json;
use stagehand_agents::machine::read_json;
use stagehand_agents::runtime::{
    Emission, Next, PlaybookCallResult, PlayerResult, PortCall, Receipt, Reply, Request, RunResult, Runtime,
    RuntimeError, Session, Settled, Step, TRACE_TYPES,
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
    // `apply` is a boundary of its own: with the call pending nothing is advertised, so the
    // action is rejected (and not recorded), the pair traced (§1.11 step 3).
    let first = rt.apply("jump:x", "k", 5).expect("apply is taken");
    let (out, settled) = settle(&mut rt, first, |_| Reply::Drained);
    let Settled::Receipt { result: Ok(Receipt::Rejected { reason }) } = settled else { panic!("{settled:?}") };
    assert!(reason.contains("not currently advertised"), "{reason}");
    assert_eq!(types(&out), ["s:apply.started", "s:apply.finished"]);
    assert!(rt.pending_call().is_some(), "the call is still pending");
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
    assert_eq!(v["sequences"], json!({"trace": 3, "turn": 1, "judgeCall": 0, "playerCall": 0, "playbookCall": 0}));
}

/// Runs a boundary to its end with `answer` choosing each reply.
fn settle(rt: &mut Runtime, first: Step, mut answer: impl FnMut(&Request) -> Reply) -> (Vec<Emission>, Settled) {
    let mut at = 100;
    rt.complete(first, |r| {
        at += 1;
        (answer(r), at)
    })
    .expect("every reply fits")
}

fn types(out: &[Emission]) -> Vec<String> {
    out.iter()
        .filter_map(|e| match e {
            Emission::Trace { event } => Some(format!("{}:{}", event.session_id, event.trace_type)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_real_child_frame_shares_the_roots_tokens_and_nests_its_trace() {
    let parent_doc = include_str!("../../../conformance/agents/machines/delegator.json");
    let mut parent = Runtime::new(read_json(parent_doc).expect("reads"), Default::default()).expect("runtime");
    let mut child_doc: serde_json::Value =
        serde_json::from_str(include_str!("../../../conformance/agents/machines/writer.json")).expect("json");
    child_doc["id"] = json!("review");
    let child_machine = stagehand_agents::machine::read_value(child_doc).expect("reads");

    let mut host_log = Vec::new();
    let step = parent.init(Session::root("root", "delegator"), 1).expect("init");
    let (out, _) = settle(&mut parent, step, |_| Reply::Drained);
    host_log.extend(types(&out));
    parent.restore_player_tokens([("writer".to_owned(), "root-token".to_owned())].into()).expect("idle");

    // The parent asks for the child call; the host starts a real child runtime for it.
    let step = parent.handle_boss_input("review this", 2).expect("turn");
    host_log.extend(types(&step.emitted));
    let step = parent.answer(Reply::Judge { text: json!({"type": "START"}).to_string() }, 3).expect("fits");
    host_log.extend(types(&step.emitted));
    let Next::Request { request: Request::Call { call: PortCall::Playbook { call_id, text, .. } } } = &step.next else {
        panic!("expected the nested call, got {:?}", step.next)
    };
    let mut child = Runtime::new(child_machine, Default::default()).expect("runtime");
    let child_session = Session {
        session_id: "child".into(),
        playbook_id: "review".into(),
        root_session_id: "root".into(),
        parent_session_id: Some("root".into()),
        parent_call_id: Some(call_id.clone()),
        depth: 1,
        player_tokens: parent.player_tokens().clone(),
    };
    let s = child.init(child_session, 4).expect("child init");
    let (out, _) = settle(&mut child, s, |_| Reply::Drained);
    host_log.extend(types(&out));
    let s = child.handle_boss_input(text, 5).expect("child turn");
    let (out, settled) = settle(&mut child, s, |r| match r {
        Request::Call { call: PortCall::Player { resume, .. } } => {
            // The child's writer resumes the root's conversation.
            assert_eq!(resume.as_deref(), Some("root-token"));
            Reply::Player {
                result: PlayerResult {
                    status: stagehand_agents::runtime::CallStatus::Ok,
                    resume_token: Some("child-token".into()),
                    final_text: Some("Reviewed.".into()),
                    error: None,
                },
            }
        }
        _ => Reply::Judge { text: json!({"guard": "written"}).to_string() },
    });
    host_log.extend(types(&out));
    let Settled::Run { result: Ok(RunResult::Terminal { output: Some(output), .. }) } = settled else {
        panic!("the child ends")
    };
    let tokens = child.player_tokens().clone();
    let s = child.dispose(6).expect("dispose");
    let (out, _) = settle(&mut child, s, |_| Reply::Drained);
    host_log.extend(types(&out));

    // The host hands the child's result and the shared tokens back to the root.
    let result = PlaybookCallResult::Ok {
        child_session_id: "child".into(),
        state: None,
        output: Some(json!({"guard": "approved", "summary": output["text"]})),
    };
    let start = stagehand_agents::runtime::PlaybookCallStart::Settled { result };
    let step = parent.answer(Reply::Playbook { start }, 7).expect("fits");
    host_log.extend(types(&step.emitted));
    assert!(matches!(step.next, Next::Settled { settled: Settled::Run { result: Ok(RunResult::Terminal { .. }) } }));
    parent.restore_player_tokens(tokens).expect("idle");
    assert_eq!(parent.player_tokens().get("writer").map(String::as_str), Some("child-token"));

    let at = |t: &str| host_log.iter().position(|x| x == t).unwrap_or_else(|| panic!("no {t} in {host_log:?}"));
    assert!(at("root:playbook.call.started") < at("child:session.started"));
    assert!(at("child:session.disposed") < at("root:playbook.call.finished"));
}

#[test]
fn complete_stops_at_a_reply_that_does_not_fit() {
    let mut rt = writer();
    init(&mut rt);
    let step = rt.handle_boss_input("rain", 2).expect("turn");
    let got = rt.complete(step, |_| (Reply::Script { exit_code: Some(0) }, 3));
    assert_eq!(got.err(), Some(RuntimeError::WrongReply));
    assert!(rt.is_busy(), "the boundary still waits for a fitting reply");
    let step = rt.answer(Reply::Abort, 4).expect("abort fits anything");
    assert!(matches!(step.next, Next::Settled { settled: Settled::Run { result: Ok(RunResult::Aborted { .. }) } }));
}

#[test]
fn each_state_telemetry_carries_the_payload_of_the_transition_before_it() {
    let mut rt = writer();
    init(&mut rt);
    let first = rt.handle_boss_input("rain", 2).expect("turn");
    let (out, _) = settle(&mut rt, first, |r| match r {
        Request::Call { call: PortCall::Player { .. } } => Reply::Player { result: PlayerResult::ok("Which tone?") },
        Request::Call { call: PortCall::Judge { .. } } => {
            Reply::Judge { text: json!({"guard": "needsBossReply", "question": "Which tone?"}).to_string() }
        }
        _ => Reply::Drained,
    });
    let mut last = None;
    let mut seen = 0;
    for e in &out {
        match e {
            Emission::Trace { event } if event.trace_type == "fsm.transition" => last = Some(event.payload.clone()),
            Emission::Telemetry { topic, payload } if topic == "playbook.fsm.state" => {
                assert_eq!(Some(payload), last.as_ref(), "§1.7: the telemetry follows its transition, same payload");
                seen += 1;
            }
            _ => {}
        }
    }
    assert_eq!(seen, 2, "ready -> write, write -> awaitBossReply");
}
