//! Plays TURNS turns on a 100,000-line linear playbook, for instruction counts under callgrind,
//! in one of six ways (MODE):
//!
//! - `step`: `step_into` called directly, into a buffer kept between steps: the stricter
//!   baseline;
//! - `owned`: `step` called directly, its events in a vector of their own each time (what the
//!   issue names as the baseline: the pure function, which allocates a step's events);
//! - `seam`: the runner's step through the `Engine` trait (`take_lent`, each event lent to a
//!   sink that counts it);
//! - `look` (the default): a host-session turn as a host takes it: `look` at the view, the first
//!   action's id, `act` under a fresh key, the receipt's outcome and said words read, the trace
//!   records dropped;
//! - `describe`: the same turn through `describe_into` + `apply_into` (a view and a receipt
//!   written out in full, reusing the host's strings);
//! - `lines`: `look` + `act` with the trace also written as JSON lines;
//! - `scattered`: `look` + `act` under keys in no order (sixteen hexadecimal digits of a mix of
//!   the turn's number, as random as the web page's keys), so every key goes through the hash
//!   table rather than the ascending run (decision H73).
//!
//! ```sh
//! cargo build --release -p stagehand-session --example host_turns
//! valgrind --tool=callgrind target/release/examples/host_turns 1000 look
//! valgrind --tool=callgrind target/release/examples/host_turns 3000 look   # the difference: 2,000 turns
//! ```

use std::hint::black_box;

use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
use stagehand_protocol::{Command, Engine, Receipt, View};
use stagehand_runner::{step, step_into, PlayState, PreparedPlaybook, RunnerEngine, Situation};
use stagehand_session::host::Session;

/// Writes `n` in decimal after `prefix` (a host's own key; `write!` would cost more than some of
/// what is measured).
fn key_into(key: &mut String, prefix: &str, n: u64) {
    key.clear();
    key.push_str(prefix);
    key.push_str(itoa::Buffer::new().format(n));
}

/// Writes sixteen hexadecimal digits of a mix of `n` (splitmix64's finaliser): a key in no order.
fn scattered_key_into(key: &mut String, n: u64) {
    let mut z = n.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    key.clear();
    for shift in (0..16).rev() {
        key.push(char::from(b"0123456789abcdef"[(z >> (4 * shift)) as usize & 15]));
    }
}

fn main() {
    let turns: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1_000);
    let mode = std::env::args().nth(2).unwrap_or_else(|| "look".to_owned());
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
    if mode == "step" {
        let context = prepared.context();
        let (mut state, mut events) = (PlayState::new(), Vec::new());
        let started = std::time::Instant::now();
        for _ in 0..turns {
            events.clear();
            let command =
                if matches!(state.situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            state = step_into(context, &state, command, &mut events);
        }
        println!("{turns} steps, {} events in the last", black_box(events.len()));
        per_turn(started, turns);
        return;
    }
    if mode == "owned" {
        let context = prepared.context();
        let (mut state, mut said) = (PlayState::new(), 0usize);
        let started = std::time::Instant::now();
        for _ in 0..turns {
            let command =
                if matches!(state.situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            let result = step(context, &state, command);
            said += black_box(&result.events).len();
            state = result.state;
        }
        println!("{turns} steps, {said} events");
        per_turn(started, turns);
        return;
    }
    if mode == "seam" {
        let mut engine = RunnerEngine::with(&prepared, 0);
        let mut said = 0usize;
        let started = std::time::Instant::now();
        for _ in 0..turns {
            let command =
                if matches!(engine.state().situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            engine.take_lent(command, &mut |event| said += black_box(event).is_request() as usize + 1);
        }
        println!("{turns} steps, {said} events");
        per_turn(started, turns);
        return;
    }
    let mut session = Session::new(RunnerEngine::with(&prepared, 0), "turns", 0).expect("a session");
    if mode == "forget" {
        session.retain_receipts(false);
    }
    let started = std::time::Instant::now();
    let mut view = View::empty();
    let mut receipt = Receipt::Rejected { reason: String::new() };
    let (mut key, mut action, mut lines) = (String::new(), String::new(), Vec::new());
    let mut said = 0usize;
    for turn in 1..=turns {
        if mode == "scattered" {
            scattered_key_into(&mut key, turn);
        } else {
            key_into(&mut key, "k", turn);
        }
        if mode == "describe" {
            session.describe_into(&mut view);
            action.clear();
            action.push_str(&view.actions[0].id);
            session.apply_into(&action, &key, turn, &mut receipt);
            said += black_box(&receipt).said_len();
        } else {
            let look = session.look();
            let Some(first) = look.actions().next() else { break };
            let id = match first.as_static() {
                Some(id) => id,
                None => {
                    action.clear();
                    look.write_id(first, &mut action);
                    action.as_str()
                }
            };
            let applied = session.act(id, &key, turn);
            if applied.outcome().is_some() {
                for event in applied.events() {
                    said += black_box(event.text).map_or(0, str::len);
                }
            }
        }
        if mode == "lines" {
            lines.clear();
            session.take_trace_lines(&mut lines);
        } else {
            session.discard_trace();
        }
    }
    println!("{turns} turns, {} receipts, {said} bytes said", session.receipt_count());
    per_turn(started, turns);
}

/// Prints the time a turn took on average since `started` (on standard error, apart from what
/// callgrind compares; one run's figure, for side-by-side comparisons only).
fn per_turn(started: std::time::Instant, turns: u64) {
    eprintln!("{:.1} ns a turn", started.elapsed().as_nanos() as f64 / turns as f64);
}

/// Reads a receipt's said words as a host would (their length, so nothing is optimised away).
trait Said {
    fn said_len(&self) -> usize;
}

impl Said for Receipt {
    fn said_len(&self) -> usize {
        match self {
            Receipt::Executed { events, .. } => events.iter().map(|e| e.text.as_deref().map_or(0, str::len)).sum(),
            _ => 0,
        }
    }
}
