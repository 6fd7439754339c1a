//! The allocation-free paths of the host session give exactly what the owned ones give:
//! `describe_into` over a used view, `apply_into` over a used receipt, the trace written as JSON
//! lines, `write_snapshot`, and the runner engine made from a prepared playbook (lent, shared or
//! its own), on both engines, for a run driven through every kind of move.

mod host_support;

use std::sync::Arc;

use host_support::{choose, crossing, crossing_engine, fair, Choice};
use stagehand_protocol::{Action, Command, Engine, Receipt, Status, View};
use stagehand_runner::{PreparedPlaybook, RunnerEngine};
use stagehand_session::host::Session;

/// A view full of things no session says, so a stale leftover would show.
fn cluttered() -> View {
    View {
        status: Status::Stopped,
        at_rest: false,
        state_id: "clutter".repeat(9),
        description: "left over ".repeat(20),
        pending_questions: Vec::new(),
        last_error: Some("old".into()),
        actions: (0..9).map(|i| Action::new(format!("old:{i}"), "old label".repeat(3))).collect(),
        unavailable: Vec::new(),
    }
}

/// Drives two twin sessions in lockstep, one through the owned calls and one through the lending
/// ones, and compares everything they give.
fn lockstep<E: Engine>(mut owned: Session<E>, mut lent: Session<E>, moves: usize) {
    let mut view = cluttered();
    let mut receipt = Receipt::Executed { outcome: stagehand_protocol::Outcome::Stopped, events: Vec::new() };
    for turn in 0..moves {
        let expected = owned.describe();
        lent.describe_into(&mut view);
        assert_eq!(view, expected, "turn {turn}: describe_into over a used view");
        let Some(choice) = choose(&expected, turn * 7 + 3) else { break };
        let key = format!("k{}", turn % 5 + turn / 3);
        let now = turn as u64;
        let given = match &choice {
            Choice::Apply(id) => {
                lent.apply_into(id, &key, now, &mut receipt);
                owned.apply(id, &key, now)
            }
            Choice::Input(q, text) => {
                receipt = lent.input(q, text, &key, now);
                owned.input(q, text, &key, now)
            }
        };
        assert_eq!(receipt, given, "turn {turn}: apply_into over a used receipt");
        let mut lines = Vec::new();
        lent.take_trace_lines(&mut lines);
        let expected_lines: String = owned.take_trace().iter().map(|r| r.to_json_line() + "\n").collect();
        assert_eq!(String::from_utf8(lines).unwrap(), expected_lines, "turn {turn}: the trace as JSON lines");
        if turn % 4 == 0 {
            let mut bytes = Vec::new();
            lent.write_snapshot(&mut bytes).unwrap();
            assert_eq!(bytes, serde_json::to_vec(&owned.snapshot().unwrap()).unwrap(), "turn {turn}: the snapshot");
        }
    }
}

#[test]
fn the_lending_calls_give_what_the_owned_ones_give_on_a_playbook() {
    let playbook = fair();
    let prepared = PreparedPlaybook::new(&playbook);
    let owned = Session::new(RunnerEngine::new(&playbook, 7), "s1", 1).unwrap();
    let lent = Session::new(RunnerEngine::with(&prepared, 7), "s1", 1).unwrap();
    lockstep(owned, lent, 60);
    let shared = Arc::new(PreparedPlaybook::new(&playbook));
    let owned = Session::new(RunnerEngine::shared(Arc::clone(&shared), 7), "s2", 1).unwrap();
    let lent = Session::new(RunnerEngine::shared(shared, 7), "s2", 1).unwrap();
    lockstep(owned, lent, 60);
}

#[test]
fn the_lending_calls_give_what_the_owned_ones_give_on_a_chatmapper_project() {
    let project = crossing();
    let owned = Session::new(crossing_engine(&project), "c1", 1).unwrap();
    let lent = Session::new(crossing_engine(&project), "c1", 1).unwrap();
    lockstep(owned, lent, 60);
}

#[test]
fn a_prepared_playbook_plays_as_the_engine_that_prepares_its_own() {
    let playbook = fair();
    let prepared = PreparedPlaybook::new(&playbook);
    let mut engines = [
        RunnerEngine::new(&playbook, 3),
        RunnerEngine::with(&prepared, 3),
        RunnerEngine::shared(Arc::new(PreparedPlaybook::new(&playbook)), 3),
    ];
    assert!(engines.iter().all(|e| e.fingerprint() == engines[0].fingerprint() && e.anchors() == engines[0].anchors()));
    let commands = [Command::start(), Command::Next, Command::Next, Command::Choose(0), Command::Next, Command::Done];
    for command in commands {
        let mut reports = Vec::new();
        for engine in &mut engines {
            let mut owned = Vec::new();
            let mut lent = Vec::new();
            let mut twin = engine.clone();
            engine.take(command.clone(), &mut owned);
            twin.take_lent(command.clone(), &mut |event| lent.push(event.clone().into_owned()));
            assert_eq!(owned, lent, "take_lent lends what take reports");
            assert_eq!((engine.state_id(), engine.describe()), (twin.state_id(), twin.describe()));
            reports.push((owned, engine.state_id(), engine.describe()));
        }
        assert!(reports.iter().all(|r| *r == reports[0]), "{command:?}: every way of holding the playbook plays alike");
    }
}
