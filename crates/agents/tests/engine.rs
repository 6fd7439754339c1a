//! `AgentEngine`: the agent runtime behind the protocol's `Engine` (A26–A29), played with a
//! scripted host on the example machine: Boss text as a `supply`, each port call a `call`
//! answered with `answer`, the control actions as the engine's own, snapshots at rest.

use stagehand_agents::machine::read_toml;
use stagehand_agents::runtime::{Options, PlayerResult};
use stagehand_agents::{AgentEngine, AgentSnapshot};
use stagehand_protocol::port::CallStatus;
use stagehand_protocol::{
    Answer, AnswerKind, Answers, Command, Engine, OwnedEvent, PortAnswer, PortCall, RefusalReason, Waiting,
};

const MACHINE: &str = include_str!("../../../examples/agents/write-review-revise.toml");

fn engine() -> AgentEngine {
    let machine = read_toml(MACHINE).expect("the example machine reads");
    AgentEngine::new(machine, Options::default(), "s-1").expect("an engine")
}

fn take(engine: &mut AgentEngine, command: Command<'_>) -> Vec<OwnedEvent> {
    let mut events = Vec::new();
    engine.take(command, &mut events);
    events
}

fn boss(engine: &mut AgentEngine, text: &str) -> Vec<OwnedEvent> {
    let answers: Answers<'_> = [("task", Answer::Text(text.into()))].into_iter().collect();
    take(engine, Command::Supply(answers))
}

/// The example's ports, scripted: the writer drafts, the reviewer says `verdict`, the judge
/// reads the verdict off the output it is shown.
fn scripted(call: &PortCall, verdict: &str) -> PortAnswer {
    match call {
        PortCall::Player { player_id, .. } if player_id == "writer" => {
            PortAnswer::Player { result: PlayerResult::ok("Draft: rain on the roof") }
        }
        PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok(format!("VERDICT: {verdict}")) },
        PortCall::Judge { prompt, .. } if prompt.contains("VERDICT: approved") => {
            PortAnswer::Judge { text: r#"{"guard": "approved"}"#.into() }
        }
        PortCall::Judge { prompt, .. } if prompt.contains("VERDICT: changes") => {
            PortAnswer::Judge { text: r#"{"guard": "changes", "notes": "shorter"}"#.into() }
        }
        PortCall::Judge { prompt, .. } if prompt.contains("`revised`") => {
            PortAnswer::Judge { text: r#"{"guard": "revised"}"#.into() }
        }
        PortCall::Judge { .. } => PortAnswer::Judge { text: r#"{"guard": "drafted"}"#.into() },
        other => panic!("the example makes no such call: {other:?}"),
    }
}

/// Answers every call with `host` until the engine stops asking; every event, in order.
fn answer_all(
    engine: &mut AgentEngine,
    mut events: Vec<OwnedEvent>,
    mut host: impl FnMut(&PortCall) -> PortAnswer,
) -> Vec<OwnedEvent> {
    let mut all = Vec::new();
    for _ in 0..50 {
        let call = match events.last() {
            Some(OwnedEvent::Call { call }) => call.clone(),
            _ => break,
        };
        all.append(&mut events);
        assert_eq!(engine.waiting(), Waiting::Effect);
        events = take(engine, Command::Answer(std::borrow::Cow::Owned(host(&call))));
    }
    all.append(&mut events);
    all
}

#[test]
fn the_engine_asks_for_the_task_then_plays_each_port_call_to_the_end() {
    let mut engine = engine();
    assert_eq!(engine.waiting(), Waiting::Start);
    let opened = take(&mut engine, Command::start());
    assert_eq!(opened, vec![OwnedEvent::Resolve { questions: vec![("task".into(), AnswerKind::Text)] }]);
    assert_eq!(engine.waiting(), Waiting::Answers);
    assert_eq!(engine.state_id(), "ready");
    let first = boss(&mut engine, "a poem about rain");
    assert!(
        matches!(first.last(), Some(OwnedEvent::Call { call: PortCall::Player { player_id, .. } }) if player_id == "writer")
    );
    let events = answer_all(&mut engine, first, |call| scripted(call, "approved"));
    assert_eq!(events.last(), Some(&OwnedEvent::Ended), "{events:?}");
    assert_eq!(engine.waiting(), Waiting::Ended);
    assert_eq!(engine.state_id(), "approved");
    let said: Vec<&OwnedEvent> = events.iter().filter(|e| matches!(e, OwnedEvent::Said { .. })).collect();
    assert_eq!(said.len(), 1, "the output is said once: {events:?}");
    let calls = events.iter().filter(|e| matches!(e, OwnedEvent::Call { .. })).count();
    assert_eq!(calls, 4, "writer, judge, reviewer, judge: {events:?}");
    assert!(engine.take_log().iter().any(|l| l == "◇ → approved"), "status lines are logged");
}

#[test]
fn an_answer_that_does_not_fit_the_call_is_refused_and_changes_nothing() {
    let mut engine = engine();
    take(&mut engine, Command::start());
    let events = boss(&mut engine, "a poem");
    let Some(OwnedEvent::Call { call }) = events.last().cloned() else { panic!("{events:?}") };
    let refused = take(&mut engine, Command::Answer(std::borrow::Cow::Owned(PortAnswer::Judge { text: "{}".into() })));
    assert!(matches!(&refused[..], [OwnedEvent::Refused { reason: RefusalReason::Misplaced, .. }]), "{refused:?}");
    assert_eq!(engine.outstanding(), Some(&call));
    assert!(engine.clone().snapshot().is_err(), "no snapshot while a call is outstanding");
}

#[test]
fn a_failed_player_is_refused_as_run_failed_and_retry_is_the_engines_own_action() {
    let mut engine = engine();
    take(&mut engine, Command::start());
    let first = boss(&mut engine, "a poem");
    let events = answer_all(&mut engine, first, |call| match call {
        PortCall::Player { player_id, .. } if player_id == "reviewer" => PortAnswer::Player {
            result: PlayerResult {
                status: CallStatus::Error,
                resume_token: None,
                final_text: None,
                error: Some("the reviewer is away".into()),
            },
        },
        other => scripted(other, "approved"),
    });
    let refused = events.iter().find_map(|e| match e {
        OwnedEvent::Refused { reason, explanation } => Some((*reason, explanation.clone())),
        _ => None,
    });
    assert_eq!(refused, Some((RefusalReason::RunFailed, "the reviewer is away".to_owned())), "{events:?}");
    assert_eq!(engine.state_id(), "failed");
    assert_eq!(engine.waiting(), Waiting::Answers, "the engine rests at failed, asking for Boss text");
    let actions = engine.actions();
    let retry = actions.iter().find(|a| a.id == "retry:START").unwrap_or_else(|| panic!("{actions:?}"));
    assert!(retry.label.starts_with("Retry: "), "labelled from a description: {retry:?}");
    // Retrying replays START: the writer is called again, then all goes well.
    let again = take(&mut engine, Command::Act { action: "retry:START".into() });
    assert!(matches!(again.last(), Some(OwnedEvent::Call { call: PortCall::Player { .. } })), "{again:?}");
    let events = answer_all(&mut engine, again, |call| scripted(call, "approved"));
    assert_eq!(events.last(), Some(&OwnedEvent::Ended), "{events:?}");
    // An action not advertised is refused.
    let mut fresh = self::engine();
    take(&mut fresh, Command::start());
    let refused = take(&mut fresh, Command::Act { action: "retry:START".into() });
    assert!(
        matches!(refused.first(), Some(OwnedEvent::Refused { reason: RefusalReason::Misplaced, .. })),
        "{refused:?}"
    );
}

#[test]
fn a_snapshot_at_rest_restores_into_a_fresh_engine_with_the_same_future() {
    let mut engine = engine();
    assert_eq!(engine.snapshot().unwrap().phase, "notStarted");
    take(&mut engine, Command::start());
    let at_rest: AgentSnapshot = engine.snapshot().expect("a snapshot at rest");
    assert_eq!(at_rest.phase, "rest");
    let json = serde_json::to_string(&at_rest).unwrap();
    let mut restored = self::engine();
    restored.restore(&serde_json::from_str(&json).unwrap()).expect("it restores");
    assert_eq!(restored.state_id(), engine.state_id());
    assert_eq!(restored.waiting(), Waiting::Answers);
    let first = boss_events(&mut engine);
    let a = answer_all(&mut engine, first, |c| scripted(c, "approved"));
    let first = boss_events(&mut restored);
    let b = answer_all(&mut restored, first, |c| scripted(c, "approved"));
    assert_eq!(a, b, "the same future");
    assert_eq!(engine.snapshot().unwrap(), restored.snapshot().unwrap());
    assert_eq!(engine.snapshot().unwrap().phase, "ended");
    // An ended run reads back where it ended, not where a fresh runtime stands.
    let ended = engine.snapshot().unwrap();
    let mut again = self::engine();
    again.restore(&ended).expect("an ended run restores");
    assert_eq!((again.state_id(), engine.state_id()), ("approved".to_owned(), "approved".to_owned()));
    assert_eq!(again.describe(), engine.describe());
    assert_eq!(again.waiting(), Waiting::Ended);
    // A snapshot of another shape is refused.
    let bad = AgentSnapshot {
        phase: "rest".into(),
        runtime: None,
        output: None,
        at: None,
        acts: 0,
        traced: 0,
        counted: None,
    };
    assert!(self::engine().restore(&bad).is_err());
}

fn boss_events(engine: &mut AgentEngine) -> Vec<OwnedEvent> {
    boss(engine, "an essay")
}

#[test]
fn the_fingerprint_is_the_machines_and_starting_at_an_anchor_is_refused() {
    let (a, b) = (engine(), engine());
    assert_eq!(a.fingerprint(), b.fingerprint());
    assert_eq!(a.fingerprint().len(), 64);
    let mut engine = engine();
    let refused = take(&mut engine, Command::start_at("review"));
    assert!(matches!(&refused[..], [OwnedEvent::Refused { reason: RefusalReason::NoSuchAnchor, .. }]));
    assert_eq!(engine.waiting(), Waiting::Start);
}

/// The key Boss text is asked under at rest, and what the engine then does with it.
fn asked_key(events: &[OwnedEvent]) -> Option<String> {
    events.iter().rev().find_map(|e| match e {
        OwnedEvent::Resolve { questions } => questions.first().map(|(key, _)| key.clone()),
        _ => None,
    })
}

#[test]
fn the_key_says_the_entry_event_applies_only_where_the_runtime_applies_it() {
    // §1.5 step 3 (A18): the entry event applies at the `ready` hub (or a final state); a
    // machine whose idle hub has another name classifies Boss text, so the engine must ask
    // for it under `boss`, not under the entry event's text field (A26).
    let text = include_str!("../../../conformance/agents/machines/writer.json").replace("\"ready\"", "\"idle\"");
    let machine = stagehand_agents::machine::read_json(&text).expect("the renamed writer reads");
    let mut engine = AgentEngine::new(machine, Options::default(), "s-1").expect("an engine");
    let events = take(&mut engine, Command::Start { anchor: None });
    assert_eq!(asked_key(&events).as_deref(), Some("boss"), "{events:?}");
    // And Boss text under that key goes to the judge, as the runtime decides.
    let answers: Answers<'_> = [("boss", Answer::Text("rain".into()))].into_iter().collect();
    let events = take(&mut engine, Command::Supply(answers));
    assert!(events.iter().any(|e| matches!(e, OwnedEvent::Call { call: PortCall::Judge { .. } })), "{events:?}");
    // The example's `ready` hub still asks under the entry field.
    let events = take(&mut self::engine(), Command::Start { anchor: None });
    assert_eq!(asked_key(&events).as_deref(), Some("task"), "{events:?}");
}

#[test]
fn ids_given_before_an_ended_snapshot_are_not_given_again_by_a_replay() {
    let mut engine = engine();
    let initial = engine.snapshot().unwrap();
    take(&mut engine, Command::start());
    let first = boss_events(&mut engine);
    let events = answer_all(&mut engine, first, |c| scripted(c, "approved"));
    assert_eq!(events.last(), Some(&OwnedEvent::Ended), "{events:?}");
    let ended = engine.snapshot().unwrap();
    assert_eq!(ended.phase, "ended");
    // Kept to be restored, then undone: the host restores the initial snapshot and replays.
    let json = serde_json::to_string(&ended).unwrap();
    let mut restored = self::engine();
    restored.restore(&serde_json::from_str(&json).unwrap()).expect("it restores");
    restored.restore(&initial).expect("the initial snapshot restores");
    take(&mut restored, Command::start());
    let events = boss_events(&mut restored);
    let Some(OwnedEvent::Call { call: PortCall::Player { call_id, .. } }) = events.last() else { panic!("{events:?}") };
    // The run called the writer and the reviewer (player-1, player-2) and the judge twice.
    assert_eq!(call_id, "player-3", "the replay's first call has an id of its own (A53)");
}

#[test]
fn a_pending_question_is_worded_as_its_player_asked_it() {
    const QUESTION: &str = "Which tone, gloomy or bright?";
    let mut engine = engine();
    take(&mut engine, Command::start());
    assert_eq!(engine.question_text("task"), None, "asking for the task is no player's question");
    let events = boss(&mut engine, "a poem about rain");
    let all = answer_all(&mut engine, events, |call| match call {
        PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok(QUESTION) },
        PortCall::Judge { .. } => {
            PortAnswer::Judge { text: format!(r#"{{"guard": "needsBossReply", "question": "{QUESTION}"}}"#) }
        }
        other => panic!("the example makes no such call: {other:?}"),
    });
    assert_eq!(engine.waiting(), Waiting::Answers);
    let key = asked_key(&all).expect("Boss is asked");
    assert_eq!(engine.question_text(&key).as_deref(), Some(QUESTION), "asked under {key}");
    assert_eq!(engine.question_text("no-such-question"), None);
}
