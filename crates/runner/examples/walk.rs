//! Plays a generated playbook to its end, `ROUNDS` times, for instruction counting under
//! `valgrind --tool=callgrind` (the difference between two round counts is the cost of stepping).
//!
//! `cargo run --release -p stagehand-runner --example walk -- linear|menus|conditional ROUNDS`

use std::borrow::Cow;

use stagehand_playbook::{smallvec, Condition, Edge, Fragment, Node, Playbook, Speaker};
use stagehand_runner::{step_into, Answer, Answers, Command, Entry, Event, PlayContext, PlayState};

fn book(kind: &str, n: u32) -> Playbook {
    let mut playbook = Playbook::new("walk.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes = (0..n)
        .map(|i| match kind {
            "menus" => Node::Choice {
                ordered: false,
                out: (0..3)
                    .map(|o| Edge::Option {
                        target: i + 1,
                        label: vec![Fragment::text(format!("Option {o}"))].into(),
                        condition: None,
                    })
                    .collect(),
            },
            _ => Node::Line {
                speaker: 0,
                speech: vec![Fragment::text(format!("Line {i}."))].into(),
                condition: (kind == "conditional").then(|| Condition::key(format!("flag{}", i % 100))),
                out: smallvec![Edge::Succession { target: i + 1 }],
            },
        })
        .collect();
    playbook.nodes.push(Node::End);
    playbook
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "linear".to_owned());
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let playbook = book(&kind, 100_000);
    let context = PlayContext::new(&playbook);
    let mut events: Vec<Event<'_>> = Vec::with_capacity(8);
    let mut buffer: Vec<Entry<'_>> = Vec::with_capacity(4);
    let mut steps = 0usize;
    for _ in 0..rounds {
        let mut state = PlayState::new();
        let mut command = Command::start();
        loop {
            events.clear();
            state = step_into(&context, &state, command, &mut events);
            steps += 1;
            command = match events.last() {
                Some(Event::Ended) => break,
                Some(Event::Offer { .. }) => Command::Choose(0),
                Some(Event::Resolve { questions }) => {
                    buffer.clear();
                    for q in questions.iter() {
                        let flag = q.key.ends_with(['0', '2', '4', '6', '8']);
                        buffer.push((Cow::Borrowed(q.key), Answer::Truth(flag)));
                    }
                    Command::Supply(Answers::borrowed(&buffer))
                }
                _ => Command::Next,
            };
        }
    }
    println!("{kind}: {rounds} round(s), {steps} steps");
}
