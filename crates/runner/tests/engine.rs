//! The runner behind the Engine seam: stepping through `RunnerEngine` reports what `step` reports
//! and leaves the same state, and its snapshot is a plain value that restores the same state.

mod common;

use common::generate;
use proptest::prelude::*;
use stagehand_protocol::{Engine, Waiting};
use stagehand_runner::{step, Command, PlayContext, PlayState, RunnerEngine, RunnerSnapshot, Situation};

fn command(pick: u8) -> Command<'static> {
    match pick % 6 {
        0 => Command::start(),
        1 | 2 => Command::Next,
        3 => Command::Done,
        4 => Command::Choose(i64::from(pick / 6 % 3)),
        _ => Command::failed("no"),
    }
}

proptest! {
    #[test]
    fn the_seam_reports_what_step_reports(playbook in generate::playbook(10), seed in any::<u64>(), picks in prop::collection::vec(any::<u8>(), 1..30)) {
        let context = PlayContext::new(&playbook);
        let mut state = PlayState::seeded(seed);
        let mut engine = RunnerEngine::new(&playbook, seed);
        for pick in picks {
            let direct = step(&context, &state, command(pick));
            let mut events = Vec::new();
            engine.take(command(pick), &mut events);
            let direct_events: Vec<_> = direct.events.into_iter().map(|e| e.into_owned()).collect();
            prop_assert_eq!(events, direct_events);
            state = direct.state;
            prop_assert_eq!(engine.state(), &state);
            let waiting = match state.situation {
                Situation::NotStarted => Waiting::Start,
                Situation::AtNode(_) => Waiting::Next,
                Situation::AwaitingDone { .. } => Waiting::Effect,
                Situation::AwaitingSupply { .. } => Waiting::Answers,
                Situation::AwaitingChoice { .. } => Waiting::Choice,
                Situation::AtEnd => Waiting::Ended,
            };
            prop_assert_eq!(engine.waiting(), waiting);
            // A snapshot through JSON restores the very state.
            let json = serde_json::to_string(&engine.snapshot().unwrap()).unwrap();
            let snapshot: RunnerSnapshot = serde_json::from_str(&json).unwrap();
            let mut other = RunnerEngine::new(&playbook, 0);
            other.restore(&snapshot).unwrap();
            prop_assert_eq!(other.state(), &state);
            prop_assert_eq!(other.state_id(), engine.state_id());
        }
    }
}

#[test]
fn a_snapshot_that_does_not_fit_is_refused() {
    let playbook = common::playbook(vec![
        common::line(0, common::text("Hi."), vec![common::next(1)]),
        stagehand_playbook::Node::End,
    ]);
    let mut engine = RunnerEngine::new(&playbook, 1);
    engine.take(Command::start(), &mut Vec::new());
    let good = engine.snapshot().unwrap();
    for bad in [
        RunnerSnapshot { node: Some(99), ..good.clone() },
        RunnerSnapshot { node: None, ..good.clone() },
        RunnerSnapshot { situation: "dancing".into(), ..good.clone() },
    ] {
        let error = engine.restore(&bad).unwrap_err();
        assert!(!error.message.is_empty());
        assert_eq!(engine.snapshot().unwrap(), good, "a refused snapshot leaves the engine as it was");
    }
    assert_eq!(engine.fingerprint(), stagehand_playbook::fingerprint(&playbook).to_hex());
    assert!(engine.describe().ends_with('.'));
}

/// Random Choice (notes): "Resolved dynamic total differs from 100 by more than 0.5 — runtime
/// warning equivalent to DLG3003; normalize and continue." The engine logs it; the run goes on.
#[test]
fn a_dynamic_draw_whose_weights_drift_from_100_is_logged_and_played() {
    use common::{line, next, playbook, random_arm, supply, text};
    use stagehand_playbook::{smallvec, Node, Weight};
    use stagehand_runner::Answer;
    let book = playbook(vec![
        Node::RandomChoice {
            out: smallvec![
                random_arm(1, Weight::Query { key: "a".into() }, None),
                random_arm(2, Weight::Query { key: "b".into() }, None),
            ],
        },
        line(0, text("A."), vec![next(3)]),
        line(0, text("B."), vec![next(3)]),
        Node::End,
    ]);
    let mut engine = RunnerEngine::new(&book, 7);
    let mut events = Vec::new();
    engine.take(Command::start(), &mut events);
    assert!(engine.take_log().is_empty());
    engine.take(supply(&[("a", Answer::Number(30.0)), ("b", Answer::Number(30.0))]), &mut events);
    assert_eq!(engine.waiting(), Waiting::Next, "normalized, the draw goes on");
    let log = engine.take_log();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].contains("60") && log[0].contains("100"), "{log:?}");
    assert!(engine.take_log().is_empty(), "taken once");
    // Within 0.5 of 100, or refused: nothing logged.
    engine.take(Command::start(), &mut events);
    engine.take(supply(&[("a", Answer::Number(33.3)), ("b", Answer::Number(66.4))]), &mut events);
    assert!(engine.take_log().is_empty());
    engine.take(Command::start(), &mut events);
    engine.take(supply(&[("a", Answer::Number(-1.0)), ("b", Answer::Number(5.0))]), &mut events);
    assert_eq!(engine.waiting(), Waiting::Answers);
    assert!(engine.take_log().is_empty());
}
