//! Plays TURNS host-session turns (`describe_into` + `apply_into` of the first action, the
//! trace dropped) on a 100,000-line linear playbook, for instruction counts under callgrind:
//!
//! ```sh
//! cargo build --release -p stagehand-session --example host_turns
//! valgrind --tool=callgrind target/release/examples/host_turns 1000
//! valgrind --tool=callgrind target/release/examples/host_turns 3000   # the difference: 2,000 turns
//! ```

use std::fmt::Write as _;

use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
use stagehand_protocol::{Receipt, View};
use stagehand_runner::{PreparedPlaybook, RunnerEngine};
use stagehand_session::host::Session;

fn main() {
    let turns: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let mut playbook = Playbook::new("bench.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes = (0..100_000)
        .map(|i| Node::Line {
            speaker: 0,
            speech: vec![Fragment::text(format!("Line number {i}, said plainly."))].into(),
            condition: None,
            out: smallvec![Edge::Succession { target: i + 1 }],
        })
        .collect();
    playbook.nodes.push(Node::End);
    let prepared = PreparedPlaybook::new(&playbook);
    let mut session = Session::new(RunnerEngine::with(&prepared, 0), "turns", 0).expect("a session");
    let mut view = View::empty();
    let mut receipt = Receipt::Rejected { reason: String::new() };
    let (mut key, mut action) = (String::new(), String::new());
    for turn in 1..=turns {
        session.describe_into(&mut view);
        action.clear();
        action.push_str(&view.actions[0].id);
        key.clear();
        let _ = write!(key, "k{turn}");
        session.apply_into(&action, &key, turn, &mut receipt);
        session.discard_trace();
    }
    println!("{} turns, {} receipts", turns, session.receipt_count());
}
