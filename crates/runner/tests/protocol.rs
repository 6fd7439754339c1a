//! The protocol matrix, cell by cell: what may be sent where.

mod common;

use common::*;
use stagehand_runner::{Availability, Command, Moment, PlayState, Resume, Situation};

/// A playbook that reaches every situation: a line, an effect, a guarded line, a menu, the end.
fn tour() -> stagehand_playbook::Playbook {
    playbook(vec![
        line(0, text("Hello."), vec![next(1)]),
        control(vec![wave()], vec![next(2)]),
        guarded_line(0, "k", text("Guarded."), vec![next(3)]),
        stagehand_playbook::Node::Choice { ordered: false, out: stagehand_playbook::smallvec![option(4, "Go", None)] },
        stagehand_playbook::Node::End,
    ])
}

/// The state standing in each situation of the tour.
fn situations() -> Vec<(&'static str, PlayState)> {
    let playbook = tour();
    let mut run = Run::new(&playbook);
    let mut states = vec![("not-started", run.state.clone())];
    run.send(Command::start());
    states.push(("at-node", run.state.clone()));
    run.send(Command::Next);
    states.push(("awaiting-done", run.state.clone()));
    run.send(Command::Done);
    states.push(("awaiting-supply", run.state.clone()));
    run.send(supply(&[no("k")]));
    states.push(("awaiting-choice", run.state.clone()));
    run.send(Command::Choose(0));
    states.push(("at-end", run.state.clone()));
    states
}

fn commands() -> Vec<(&'static str, Command<'static>)> {
    vec![
        ("start", Command::start()),
        ("next", Command::Next),
        ("done", Command::Done),
        ("failed", Command::failed("no")),
        ("supply", supply(&[no("k")])),
        ("choose", Command::Choose(0)),
    ]
}

#[test]
fn the_tour_reaches_every_situation() {
    let kinds: Vec<_> = situations().into_iter().map(|(_, s)| s.situation).collect();
    assert_eq!(kinds[0], Situation::NotStarted);
    assert_eq!(kinds[1], Situation::AtNode(0));
    assert_eq!(kinds[2], Situation::AwaitingDone { node: 1, resume: Resume::FromNodeEnd, passed: 1 });
    assert_eq!(kinds[3], Situation::AwaitingSupply { node: 2, moment: Moment::ToPlay(0), passed: 2 });
    assert_eq!(kinds[4], Situation::AwaitingChoice { node: 3, available: Availability::All });
    assert_eq!(kinds[5], Situation::AtEnd);
}

#[test]
fn every_cell_of_the_matrix() {
    // What each (situation, command) reports. "ok" cells are checked by what they report.
    let expected = [
        (
            "not-started",
            [
                "said Alice \"Hello.\"",
                "refused not-started",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
            ],
        ),
        (
            "at-node",
            [
                "said Alice \"Hello.\"",
                "perform Wave()",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
            ],
        ),
        (
            "awaiting-done",
            ["said Alice \"Hello.\"", "refused misplaced", "resolve [k]", "", "refused misplaced", "refused misplaced"],
        ),
        (
            "awaiting-supply",
            [
                "said Alice \"Hello.\"",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
                "offer [Go]",
                "refused misplaced",
            ],
        ),
        (
            "awaiting-choice",
            [
                "said Alice \"Hello.\"",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
                "ended",
            ],
        ),
        (
            "at-end",
            [
                "said Alice \"Hello.\"",
                "refused already-ended",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
                "refused misplaced",
            ],
        ),
    ];
    let playbook = tour();
    for ((name, state), (expected_name, row)) in situations().into_iter().zip(expected) {
        assert_eq!(name, expected_name);
        for ((command_name, command), want) in commands().into_iter().zip(row) {
            let mut run = Run::new(&playbook);
            run.state = state.clone();
            let got = run.send(command);
            assert_eq!(got, want, "{command_name} while {name}");
            if want.starts_with("refused") || want.is_empty() {
                assert_eq!(run.state, state, "{command_name} while {name} must leave the state as it was");
            }
        }
    }
}

#[test]
fn start_at_an_anchor_and_at_one_that_is_missing() {
    let mut book = tour();
    book.anchors.insert("the-menu".into(), 3);
    let mut run = Run::new(&book);
    assert_eq!(run.send(Command::start_at("the-menu")), "offer [Go]");
    let before = run.state.clone();
    assert_eq!(run.send(Command::start_at("nowhere")), "refused no-such-anchor");
    assert_eq!(run.state, before);
}

#[test]
fn a_failure_holds_and_a_retry_carries_on() {
    let book = tour();
    let mut run = Run::new(&book);
    run.send(Command::start());
    run.send(Command::Next);
    assert_eq!(run.send(Command::failed("the database refused")), "");
    assert_eq!(run.send(Command::Next), "refused misplaced");
    assert_eq!(run.send(Command::Done), "resolve [k]");
}

#[test]
fn a_hand_built_wait_at_a_node_that_is_not_a_menu_refuses_choose() {
    let book = tour();
    let mut run = Run::new(&book);
    run.state.situation = Situation::AwaitingChoice { node: 0, available: Availability::All };
    assert_eq!(run.send(Command::Choose(0)), "refused misplaced");
    run.state.situation = Situation::AwaitingDone { node: 3, resume: Resume::FromNodeEnd, passed: 0 };
    assert_eq!(run.send(Command::Done), "refused misplaced");
    run.state.situation = Situation::AwaitingSupply { node: 1, moment: Moment::ToPlay(4), passed: 0 };
    assert_eq!(run.send(supply(&[])), "refused misplaced");
    run.state.situation = Situation::AtNode(99);
    assert_eq!(run.send(Command::Next), "refused leads-nowhere");
}
