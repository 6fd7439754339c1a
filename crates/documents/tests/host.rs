//! The host session's rules on both engines: the view and its actions, idempotent apply and
//! input, receipts across snapshot and restore, undo and restart by replay, and the trace.

mod host_support;

use host_support::*;
use stagehand_chatmapper::ChatMapperEngine;
use stagehand_protocol::{Engine, Outcome, Receipt, Status};
use stagehand_runner::{RunnerEngine, RunnerSnapshot};
use stagehand_session::host::{HostError, Pending, Session, SessionSnapshot, TraceType};

fn executed(receipt: &Receipt) -> bool {
    matches!(receipt, Receipt::Executed { .. })
}

/// Through a JSON round trip, as a host saving to disk would.
fn reload<E: Engine>(session: &mut Session<E>, fresh: E) -> Session<E> {
    let json = serde_json::to_string(&session.snapshot().expect("a snapshot")).expect("JSON");
    let snapshot: SessionSnapshot<E::Snapshot> = serde_json::from_str(&json).expect("it reads back");
    Session::restore(fresh, snapshot).expect("it restores")
}

#[test]
fn a_line_advertises_next_and_describe_changes_nothing() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 100).unwrap();
    let view = session.describe();
    assert_eq!(view.status, Status::Active);
    assert!(view.at_rest);
    assert_eq!(ids(&view), ["next", "jump:the-fair", "jump:the-party"], "nothing to undo or restart yet");
    assert!(view.description.contains("Mira"), "{}", view.description);
    assert_eq!(session.describe(), view, "describe has no side effects");
    let trace = session.take_trace();
    assert_eq!(trace.len(), 1);
    assert_eq!(trace[0].kind, "session.started");
    session.describe();
    assert!(session.take_trace().is_empty(), "describe traces nothing");

    let project = crossing();
    let session = Session::new(crossing_engine(&project), "c1", 100).unwrap();
    let view = session.describe();
    assert_eq!(view.status, Status::Active);
    assert_eq!(ids(&view)[0], "next", "{view:?}");
}

#[test]
fn a_resolve_is_a_pending_question_answered_by_input() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    assert!(executed(&session.apply("next", "k1", 2)));
    let view = session.describe();
    assert!(!view.at_rest, "a resolve waits on the world");
    assert_eq!(view.pending_questions.len(), 1);
    assert_eq!(view.pending_questions[0].question_id, "You.Rich");
    assert!(!ids(&view).contains(&"next".to_owned()));
    let bad = session.input("You.Rich", "perhaps", "k2", 3);
    assert!(matches!(&bad, Receipt::Rejected { reason } if reason.contains("truth")), "{bad:?}");
    assert!(executed(&session.input("You.Rich", "no", "k2", 4)), "a rejected key is not remembered");
    assert!(session.describe().pending_questions.is_empty());
}

#[test]
fn a_menu_advertises_its_available_options_and_shows_the_others_with_why() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    session.apply("next", "k1", 2);
    session.input("You.Rich", "no", "k2", 3);
    let view = session.describe();
    let labels: Vec<(&str, &str)> = view.actions.iter().map(|a| (a.id.as_str(), a.label.as_str())).collect();
    assert_eq!(labels[..2], [("choose:0", "Join the art club."), ("choose:1", "Join the chess club.")]);
    assert!(!ids(&view).contains(&"choose:2".to_owned()), "an unavailable option is no action");
    assert_eq!(view.unavailable.len(), 1);
    assert_eq!(view.unavailable[0].position, 2);
    assert!(view.unavailable[0].label.contains("yacht"));
    assert!(!view.unavailable[0].why.is_empty());
    let refused = session.apply("choose:2", "k3", 4);
    assert!(matches!(refused, Receipt::Rejected { .. }), "{refused:?}");
}

#[test]
fn a_perform_waits_for_done_or_failed_and_a_failure_offers_retry() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    session.apply("next", "k1", 2);
    session.input("You.Rich", "no", "k2", 3);
    assert!(executed(&session.apply("choose:0", "k3", 4)));
    let next = session.apply("next", "k3b", 4);
    let Receipt::Executed { events, .. } = next else { panic!("{next:?}") };
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["said", "perform", "continued"]);
    assert_eq!(events[1].text.as_deref(), Some(r#"JoinClub("You", "Art")"#));
    let view = session.describe();
    assert!(!view.at_rest, "{view:?}");
    assert_eq!(ids(&view)[..2], ["done", "failed"]);
    assert_eq!(view.actions[0].label, r#"Done: JoinClub("You", "Art")"#);
    assert!(executed(&session.apply("failed", "k4", 5)));
    let view = session.describe();
    assert!(view.at_rest);
    assert!(view.last_error.is_some());
    assert_eq!(ids(&view)[0], "retry");
    assert!(matches!(session.apply("done", "k5", 6), Receipt::Rejected { .. }), "done waits for retry");
    assert!(executed(&session.apply("retry", "k5", 7)), "the rejected key runs once valid");
    assert_eq!(ids(&session.describe())[..2], ["done", "failed"]);
    let done = session.apply("done", "k6", 8);
    let Receipt::Executed { outcome, .. } = done else { panic!("{done:?}") };
    assert_eq!(outcome, Outcome::Awaiting);
    assert_eq!(ids(&session.describe())[0], "next");
}

#[test]
fn a_replayed_key_returns_the_same_bytes_and_executes_nothing() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    let first = serde_json::to_string(&session.apply("next", "k1", 2)).unwrap();
    let journal = session.journal().len();
    let trace = session.take_trace().len();
    let again = serde_json::to_string(&session.apply("next", "k1", 3)).unwrap();
    assert_eq!(first, again);
    assert_eq!(session.journal().len(), journal, "nothing executed");
    assert!(session.take_trace().is_empty(), "a replay emits no new pair");
    assert!(trace > 0);
    let other = session.apply("restart", "k1", 4);
    assert!(matches!(&other, Receipt::Rejected { reason } if reason.contains("already used")), "{other:?}");
    assert_eq!(session.journal().len(), journal);

    let project = crossing();
    let mut session = Session::new(crossing_engine(&project), "c1", 1).unwrap();
    let first = serde_json::to_string(&session.apply("next", "k1", 2)).unwrap();
    let state = session.describe().state_id;
    assert_eq!(serde_json::to_string(&session.apply("next", "k1", 3)).unwrap(), first);
    assert_eq!(session.describe().state_id, state);
}

#[test]
fn a_stale_action_is_rejected_and_never_executed() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    session.apply("next", "k1", 2);
    let state = session.describe().state_id;
    let stale = session.apply("next", "k2", 3);
    assert!(matches!(&stale, Receipt::Rejected { reason } if reason.contains("not an action now")), "{stale:?}");
    assert_eq!(session.describe().state_id, state);
    assert!(matches!(session.apply("choose:9", "k3", 4), Receipt::Rejected { .. }));
    assert!(matches!(session.apply("answer:You.Rich", "k4", 4), Receipt::Rejected { .. }));
}

#[test]
fn receipts_and_the_trace_survive_a_snapshot_and_restore() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    let receipt = serde_json::to_string(&session.apply("next", "k1", 2)).unwrap();
    let last = session.take_trace().last().unwrap().sequence;
    let view = session.describe();
    let mut restored = reload(&mut session, RunnerEngine::new(&playbook, 7));
    assert_eq!(restored.describe(), view);
    assert_eq!(serde_json::to_string(&restored.apply("next", "k1", 3)).unwrap(), receipt);
    assert!(restored.take_trace().is_empty(), "no session.started after a restore, no replayed pair");
    restored.input("You.Rich", "yes", "k2", 4);
    let trace = restored.take_trace();
    assert_eq!(trace[0].sequence, last + 1, "the trace continues");
    assert_eq!(trace[0].kind, "input.received");

    let project = crossing();
    let mut session = Session::new(crossing_engine(&project), "c1", 1).unwrap();
    session.apply("next", "k1", 2);
    let view = session.describe();
    let mut restored = reload(&mut session, crossing_engine(&project));
    assert_eq!(restored.describe(), view);
    let receipt = session.apply("next", "k2", 3);
    assert_eq!(restored.apply("next", "k2", 3), receipt, "the same future");
}

#[test]
fn a_snapshot_of_another_document_is_refused() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    let snapshot = session.snapshot().unwrap();
    let mut other = fair();
    other.speakers[0].name = Some("Nora".into());
    let refused = Session::restore(RunnerEngine::new(&other, 7), snapshot);
    assert!(matches!(refused, Err(HostError::Mismatch(_))), "{refused:?}");
    let mut snapshot = session.snapshot().unwrap();
    snapshot.engine = RunnerSnapshot { node: Some(999), ..snapshot.engine };
    assert!(matches!(Session::restore(RunnerEngine::new(&playbook, 7), snapshot), Err(HostError::Engine(_))));
}

#[test]
fn undo_restart_and_jump_replay_the_journal() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    let opening = session.describe();
    session.apply("next", "k1", 2);
    let asked = session.describe();
    session.input("You.Rich", "no", "k2", 3);
    assert!(executed(&session.apply("undo", "k3", 4)));
    assert_eq!(session.describe(), asked, "undo replays to before the last move");
    assert!(executed(&session.apply("restart", "k4", 5)));
    assert_eq!(session.describe(), opening);
    assert_eq!(session.journal().len(), 1);
    assert!(!ids(&session.describe()).contains(&"undo".to_owned()), "nothing to undo after a restart");
    let jumped = session.apply("jump:the-party", "k5", 6);
    let Receipt::Executed { events, .. } = jumped else { panic!("{jumped:?}") };
    assert_eq!(events[0].text.as_deref(), Some("Now, about the party tonight."));

    let project = crossing();
    let mut session = Session::new(crossing_engine(&project), "c1", 1).unwrap();
    let opening = session.describe();
    session.apply("next", "k1", 2);
    assert!(executed(&session.apply("undo", "k2", 3)));
    assert_eq!(session.describe(), opening);
}

#[test]
fn the_trace_pairs_every_boundary_and_ends_with_dispose() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 10).unwrap();
    session.apply("next", "k1", 20);
    session.apply("next", "k2", 30); // stale: rejected, still a pair
    session.input("You.Rich", "no", "k3", 40);
    session.dispose(50);
    session.dispose(60);
    let trace = session.take_trace();
    let kinds: Vec<&str> = trace.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "session.started",
            "apply.started",
            "apply.finished",
            "apply.started",
            "apply.finished",
            "input.received",
            "input.settled",
            "session.disposed"
        ]
    );
    check_trace(&trace, 1).unwrap();
    assert_eq!(trace.iter().map(|r| r.timestamp).collect::<Vec<_>>(), [10, 20, 20, 30, 30, 40, 40, 50]);
    assert_eq!(trace[1].call_id.as_deref(), Some("apply-1"));
    assert_eq!(trace[2].payload["disposition"], "executed");
    assert_eq!(trace[4].payload["disposition"], "rejected");
    assert!(trace[2].payload.get("stateId").is_none(), "a finish carries no state id");
    assert_eq!(trace[7].trace_type(), Some(TraceType::SessionDisposed));
    assert!(matches!(session.apply("next", "k9", 70), Receipt::Rejected { .. }));
}

#[test]
fn the_crossing_plays_to_its_end_through_the_view() {
    let project = crossing();
    let mut session: Session<ChatMapperEngine> = Session::new(crossing_engine(&project), "c1", 1).unwrap();
    for turn in 0..200 {
        let view = session.describe();
        if view.status == Status::Done {
            assert!(matches!(session.pending(), Pending::Ended));
            assert!(ids(&view).contains(&"undo".to_owned()));
            return;
        }
        let choice = choose(&view, 0).expect("something to do");
        let receipt = make(&mut session, &choice, &format!("k{turn}"), turn);
        assert!(executed(&receipt), "{receipt:?}");
    }
    panic!("the crossing did not end");
}

#[test]
fn a_chatmapper_prompt_is_a_pending_question_answered_by_input() {
    let path = format!("{}/../../examples/the-lighthouse.xml", env!("CARGO_MANIFEST_DIR"));
    let project = stagehand_chatmapper::load(&std::fs::read(&path).unwrap(), &path).unwrap();
    let engine = ChatMapperEngine::new(project, stagehand_chatmapper::Options::seeded(1)).unwrap();
    let mut session = Session::new(engine, "l1", 1).unwrap();
    for turn in 0..300u64 {
        let view = session.describe();
        if let Some(question) = view.pending_questions.first() {
            assert!(view.at_rest, "a prompt asks the person, so the session is at rest (H61): {view:?}");
            let id = question.question_id.clone();
            assert!(matches!(session.apply(&format!("answer:{id}"), "a", turn), Receipt::Rejected { .. }));
            let receipt = session.input(&id, "Sam", "answer", turn);
            assert!(executed(&receipt), "{receipt:?}");
            assert_eq!(session.input(&id, "Sam", "answer", turn), receipt, "the same key and text replay");
            let other = session.input(&id, "Kim", "answer", turn);
            assert!(matches!(other, Receipt::Rejected { .. }), "the same key with other text is a reused key");
            assert!(session.describe().pending_questions.is_empty());
            assert_eq!(session.engine().variable(&id), stagehand_lua::Value::String("Sam".into()));
            return;
        }
        let first = view.actions.first().expect("an action").id.clone();
        assert!(executed(&session.apply(&first, &format!("k{turn}"), turn)));
    }
    panic!("the lighthouse asked no question on its first path");
}

#[test]
fn a_run_that_cannot_go_on_is_an_error_and_advertises_nothing_that_would_fail() {
    use stagehand_playbook::{Fragment, Node, Playbook, Speaker};
    // Nothing to start at: the opening start is refused.
    let empty = Playbook::new("empty.dialogue.md");
    let session = Session::new(RunnerEngine::new(&empty, 0), "e1", 1).unwrap();
    let view = session.describe();
    assert_eq!(view.status, Status::Error, "{view:?}");
    assert!(view.last_error.is_some());
    assert!(view.actions.is_empty(), "{view:?}");

    // A line that leads nowhere: next fails, and undo and restart go back.
    let mut nowhere = Playbook::new("nowhere.dialogue.md");
    nowhere.speakers.push(Speaker::named("Alice"));
    nowhere.nodes.push(Node::Line {
        speaker: 0,
        speech: vec![Fragment::text("Hello.")].into(),
        condition: None,
        out: Default::default(),
    });
    let mut session = Session::new(RunnerEngine::new(&nowhere, 0), "n1", 1).unwrap();
    let opening = session.describe();
    assert_eq!(ids(&opening), ["next"]);
    let failed = session.apply("next", "k1", 2);
    assert!(matches!(failed, Receipt::Failed { .. }), "{failed:?}");
    let view = session.describe();
    assert_eq!(view.status, Status::Error);
    assert_eq!(ids(&view), ["undo", "restart"]);
    assert!(executed(&session.apply("restart", "k2", 3)));
    assert_eq!(session.describe(), opening);
}

/// After `dispose` every apply, input and answer is rejected, a recorded key's among them: the
/// contract checks the lifecycle before it looks a key up (CONTRACT.md §1.11, apply step 1), and
/// H10 makes that throw a rejection. Nothing is traced after `session.disposed`.
#[test]
fn after_dispose_even_a_recorded_key_is_rejected() {
    let playbook = fair();
    let mut session = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    assert!(executed(&session.apply("next", "k1", 2)));
    assert!(executed(&session.input("You.Rich", "no", "k2", 3)));
    session.dispose(4);
    session.take_trace();
    for receipt in [session.apply("next", "k1", 5), session.input("You.Rich", "no", "k2", 5)] {
        assert!(matches!(&receipt, Receipt::Rejected { reason } if reason.contains("disposed")), "{receipt:?}");
    }
    let answer = stagehand_protocol::PortAnswer::Judge { text: "{}".into() };
    assert!(matches!(session.answer(answer, "k1", 5), Receipt::Rejected { reason } if reason.contains("disposed")));
    assert!(session.take_trace().is_empty(), "nothing after session.disposed");
}
