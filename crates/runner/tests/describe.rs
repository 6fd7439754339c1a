//! `describe`: where the run stands, and why each way out is or is not open.

mod common;

use common::*;
use stagehand_playbook::{smallvec, EdgeKind, Node, NodeKind, Weight};
use stagehand_runner::{describe, Answer, Answers, Command};

#[test]
fn a_menu_says_which_option_the_last_answers_closed() {
    let book = playbook(vec![
        Node::Choice {
            ordered: true,
            out: smallvec![option(1, "Open the door", Some("key")), option(2, "Wait", None)],
        },
        line(1, text("Open"), vec![next(3)]),
        line(1, text("Wait"), vec![next(3)]),
        Node::End,
    ]);
    let mut run = Run::new(&book);
    run.send(Command::start());
    run.send(supply(&[no("key")]));
    let last = Answers::new().with("key", Answer::Truth(false));
    let description = describe(&run.context, &run.state, Some(&last));
    assert_eq!(description.node, Some(0));
    assert_eq!(description.kind, Some(NodeKind::Choice));
    assert_eq!(description.ways_out.len(), 2);
    let door = &description.ways_out[0];
    assert_eq!(
        (door.kind, door.label.as_deref(), door.condition.as_deref(), door.holds),
        (EdgeKind::Option, Some("Open the door"), Some("key"), Some(false))
    );
    assert_eq!(description.ways_out[1].holds, None, "an unguarded option has no verdict");
}

#[test]
fn a_line_is_described_by_its_speaker_and_words() {
    let book = playbook(vec![
        line(
            0,
            vec![stagehand_playbook::Fragment::text("Hi, "), stagehand_playbook::Fragment::query("name")],
            vec![next(1)],
        ),
        Node::End,
    ]);
    let mut run = Run::new(&book);
    run.send(Command::start());
    let description = describe(&run.context, &run.state, None);
    assert_eq!(description.speaker.as_deref(), Some("Alice"));
    assert_eq!(description.text.as_deref(), Some("Hi, {name}"));
    let answered = Answers::new().with("name", Answer::Text("Robin".into()));
    assert_eq!(describe(&run.context, &run.state, Some(&answered)).text.as_deref(), Some("Hi, Robin"));
}

#[test]
fn a_random_choice_reports_each_option_s_chance() {
    let book = playbook(vec![
        Node::RandomChoice {
            out: smallvec![
                random_arm(1, Weight::Number { percentage: 70.0 }, None),
                random_arm(2, Weight::Auto, None),
                random_arm(2, Weight::Auto, Some("lucky")),
            ],
        },
        line(0, text("A"), vec![next(3)]),
        line(0, text("B"), vec![next(3)]),
        Node::End,
    ]);
    let mut run = Run::new(&book);
    run.send(Command::start());
    let unlucky = Answers::new().with("lucky", Answer::Truth(false));
    let chances: Vec<_> =
        describe(&run.context, &run.state, Some(&unlucky)).ways_out.iter().map(|w| w.chance).collect();
    assert_eq!(chances, [Some(70.0), Some(30.0), Some(0.0)]);
}

#[test]
fn before_the_start_there_is_no_node() {
    let book = playbook(vec![Node::End]);
    let run = Run::new(&book);
    let description = describe(&run.context, &run.state, None);
    assert_eq!(description.node, None);
    assert!(description.waiting.contains("not started"));
}
