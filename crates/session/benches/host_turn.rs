#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! The seam's cost on a 100,000-line linear playbook: `step_into` called directly, the same step
//! through `RunnerEngine` (the `Engine` trait, context built once), and a whole host-session
//! turn (`describe` + `apply("next")` under a fresh idempotency key). Each measures one `next`
//! from a run standing at a line; the run restarts when it reaches the end.
//!
//! Run: `cargo bench -p stagehand-session --bench host_turn`

use criterion::{criterion_group, criterion_main, Criterion};
use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
use stagehand_protocol::{Command, Engine};
use stagehand_runner::{step_into, PlayContext, PlayState, RunnerEngine, Situation};
use stagehand_session::host::Session;

const LINES: usize = 100_000;

fn linear(lines: usize) -> Playbook {
    let mut playbook = Playbook::new("bench.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes = (0..lines)
        .map(|i| Node::Line {
            speaker: 0,
            speech: vec![Fragment::text(format!("Line number {i}, said plainly."))].into(),
            condition: None,
            out: smallvec![Edge::Succession { target: i + 1 }],
        })
        .collect();
    playbook.nodes.push(Node::End);
    playbook
}

fn turns(c: &mut Criterion) {
    let playbook = linear(LINES);
    let mut group = c.benchmark_group("a turn on a 100,000-line playbook");

    let context = PlayContext::new(&playbook);
    let mut state = PlayState::new();
    let mut events = Vec::new();
    group.bench_function("step_into, directly", |b| {
        b.iter(|| {
            events.clear();
            let command =
                if matches!(state.situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            state = step_into(&context, &state, command, &mut events);
        })
    });

    let mut engine = RunnerEngine::new(&playbook, 0);
    let mut owned = Vec::new();
    group.bench_function("RunnerEngine::take, through the trait", |b| {
        b.iter(|| {
            owned.clear();
            let command =
                if matches!(engine.state().situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            engine.take(command, &mut owned);
        })
    });

    let mut session = Session::new(RunnerEngine::new(&playbook, 0), "bench", 0).expect("a session");
    let mut turn = 0u64;
    group.bench_function("Session: describe + apply(next)", |b| {
        b.iter(|| {
            turn += 1;
            let view = session.describe();
            let action = if view.actions.iter().any(|a| a.id == "next") { "next" } else { "restart" };
            let receipt = session.apply(action, &format!("k{turn}"), turn);
            session.take_trace();
            receipt
        })
    });
    group.finish();
}

criterion_group!(benches, turns);
criterion_main!(benches);
