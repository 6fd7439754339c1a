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

/// A session that keeps only its last receipt (H39) gives what one that keeps them all gives,
/// turn by turn under fresh keys, its trace too, and still replays its last key; and `look`
/// and `act` read what `describe` and `apply` render (H36, H38).
fn forgetful<E: Engine>(mut keeping: Session<E>, mut forgetting: Session<E>, moves: usize) {
    forgetting.retain_receipts(false);
    for turn in 0..moves {
        let view = keeping.describe();
        assert_eq!(forgetting.describe(), view, "turn {turn}: the view");
        let look = forgetting.look();
        assert_eq!((look.status(), look.at_rest()), (view.status, view.at_rest), "turn {turn}: status and rest");
        let read: Vec<Action> = look
            .actions()
            .map(|action| {
                let (mut id, mut label) = (String::new(), String::new());
                look.write_id(action, &mut id);
                look.write_label(action, &mut label);
                assert!(action.as_static().is_none_or(|s| s == id), "turn {turn}: {id} spelled as itself");
                Action::new(id, label)
            })
            .collect();
        assert_eq!(read, view.actions, "turn {turn}: the actions looked at");
        let Some(choice) = choose(&view, turn * 5 + 1) else { break };
        let (key, now) = (format!("k{turn}"), turn as u64);
        let (given, expected) = match &choice {
            Choice::Apply(id) => {
                let applied = forgetting.act(id, &key, now);
                let receipt = applied.to_receipt();
                let events: Vec<_> = applied.events().map(|e| e.to_owned()).collect();
                match &receipt {
                    Receipt::Executed { outcome, events: rendered } => {
                        assert_eq!((Some(*outcome), &events), (applied.outcome(), rendered));
                    }
                    Receipt::Failed { error } => assert_eq!(applied.error(), Some(error.as_str())),
                    Receipt::Rejected { reason } => assert_eq!(applied.reason(), Some(reason.as_str())),
                }
                (receipt, keeping.apply(id, &key, now))
            }
            Choice::Input(q, text) => (forgetting.input(q, text, &key, now), keeping.input(q, text, &key, now)),
        };
        assert_eq!(given, expected, "turn {turn}: the receipt");
        assert!(forgetting.receipt_count() <= 1, "turn {turn}: only the last receipt is kept");
        let mut lines = Vec::new();
        forgetting.take_trace_lines(&mut lines);
        let expected_lines: String = keeping.take_trace().iter().map(|r| r.to_json_line() + "\n").collect();
        assert_eq!(String::from_utf8(lines).unwrap(), expected_lines, "turn {turn}: the trace");
        if let Choice::Apply(id) = &choice {
            assert_eq!(forgetting.apply(id, &key, now), keeping.apply(id, &key, now), "turn {turn}: a replay");
            assert_eq!((forgetting.trace_waiting(), keeping.trace_waiting()), (0, 0), "a replay traces nothing");
        }
    }
    assert!(keeping.receipt_count() > 1, "the run was long enough to forget something");
}

#[test]
fn a_session_keeping_only_its_last_receipt_plays_alike_on_both_engines() {
    let playbook = fair();
    let prepared = PreparedPlaybook::new(&playbook);
    let keeping = Session::new(RunnerEngine::with(&prepared, 5), "f1", 1).unwrap();
    let forgetting = Session::new(RunnerEngine::with(&prepared, 5), "f1", 1).unwrap();
    forgetful(keeping, forgetting, 60);
    let project = crossing();
    let keeping = Session::new(crossing_engine(&project), "f2", 1).unwrap();
    let forgetting = Session::new(crossing_engine(&project), "f2", 1).unwrap();
    forgetful(keeping, forgetting, 60);
}

/// Receipts whose events stay with the engine (H49: a runner lent its prepared playbook) give
/// the bytes of receipts written down at once (a runner sharing its playbook writes them down):
/// each key replayed long after it was used, before and after a snapshot and restore, and the
/// snapshots themselves, written after every apply (each receipt's events written down once).
#[test]
fn receipts_left_with_the_engine_replay_and_save_as_written_ones() {
    let playbook = fair();
    let prepared = PreparedPlaybook::new(&playbook);
    let mut eager = Session::new(RunnerEngine::new(&playbook, 9), "l1", 1).unwrap();
    let mut lazy = Session::new(RunnerEngine::with(&prepared, 9), "l1", 1).unwrap();
    let mut used: Vec<(String, String)> = Vec::new();
    for turn in 0..80 {
        let view = eager.describe();
        assert_eq!(lazy.describe(), view, "turn {turn}: the view");
        // Mostly the move the run waits for (`next`, `choose:N`, `done`, an answer), now and
        // then another.
        let pick = if turn % 6 == 5 { turn } else { turn % 2 * (view.actions.len() / 3) };
        let pick = if view.pending_questions.is_empty() { pick } else { view.actions.len() };
        let key = format!("k{turn}");
        let id = match choose(&view, pick) {
            Some(Choice::Apply(id)) => id,
            Some(Choice::Input(q, text)) => {
                let (now, given) = (turn as u64, lazy.input(&q, &text, &key, turn as u64));
                assert_eq!(given, eager.input(&q, &text, &key, now), "turn {turn}: the answer");
                continue;
            }
            None => break,
        };
        let applied = lazy.act(&id, &key, turn as u64);
        let events: Vec<_> = applied.events().map(|e| e.to_owned()).collect();
        let receipt = applied.to_receipt();
        assert_eq!(receipt, eager.apply(&id, &key, turn as u64), "turn {turn}: the receipt");
        if let Receipt::Executed { events: rendered, .. } = &receipt {
            assert_eq!(&events, rendered, "turn {turn}: the events read where they are kept");
        }
        used.push((id, key));
        // An old key, replayed: the same bytes, nothing executed.
        let (old_id, old_key) = &used[turn * 7 % used.len()];
        let journal = lazy.journal().len();
        assert_eq!(lazy.apply(old_id, old_key, 0), eager.apply(old_id, old_key, 0), "turn {turn}: {old_key} replayed");
        assert_eq!(lazy.journal().len(), journal, "turn {turn}: a replay executes nothing");
        if turn % 3 == 0 {
            let mut bytes = Vec::new();
            lazy.write_snapshot(&mut bytes).unwrap();
            assert_eq!(bytes, serde_json::to_vec(&eager.snapshot().unwrap()).unwrap(), "turn {turn}: the snapshot");
        }
    }
    assert!(used.len() > 20, "the run was long enough");
    let mut bytes = Vec::new();
    lazy.write_snapshot(&mut bytes).unwrap();
    let restored = Session::restore(RunnerEngine::with(&prepared, 9), serde_json::from_slice(&bytes).unwrap());
    let mut restored = restored.unwrap();
    for (id, key) in &used {
        assert_eq!(restored.apply(id, key, 0), eager.apply(id, key, 0), "{key} replayed after a restore");
    }
    let mut again = Vec::new();
    restored.write_snapshot(&mut again).unwrap();
    assert_eq!(again, bytes, "a restored session saves the same bytes");
}
