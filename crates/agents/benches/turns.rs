#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! Issue 13, item 9: Boss turns per second with instant fake ports on a generated 1,000-state
//! machine, and the time to snapshot and restore it (BENCHMARKS.md, "Agent playbooks").
//!
//! The machine: `ready`, then a ring of 498 parked rest states `r{i}` and 498 player states
//! `p{i}` (`r{i}` --NEXT--> `p{i+1}` --done--> `r{i+1}`, the last back to the first), `failed`,
//! `awaitBossReply` and a final `done`: 1,000 states. One Boss turn at a rest state is the
//! contract's whole turn: the judge classifies the text (`NEXT`), the player is called, the
//! judge adjudicates its output (`done`), the machine rests again — three port calls, each
//! answered at once. Measured on the sans-IO runtime (`Runtime::complete`) and through the
//! protocol (`AgentEngine`: a `supply`, then three `answer`s).

use std::borrow::Cow;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use serde_json::Value;
use stagehand_agents::runtime::{Options, Runtime, Session, Snapshot};
use stagehand_agents::AgentEngine;
use stagehand_protocol::{Answer, Answers, Command, Engine, OwnedEvent};

#[allow(dead_code)] // The boss_turns examples use the rest of the module.
mod ring;
use ring::{machine, port, runtime, turn, RING};

fn engine_turn(engine: &mut AgentEngine, events: &mut Vec<OwnedEvent>) {
    events.clear();
    let answers: Answers<'_> = [("boss", Answer::Text("go on".into()))].into_iter().collect();
    engine.take(Command::Supply(answers), events);
    while let Some(OwnedEvent::Call { call }) = events.last() {
        let answer = port(call);
        events.clear();
        engine.take(Command::Answer(Cow::Owned(answer)), events);
    }
    engine.take_log();
}

fn bench(c: &mut Criterion) {
    let m = machine(RING);
    let mut group = c.benchmark_group("agents");
    group.throughput(Throughput::Elements(1));
    let small = machine(4);
    let mut at_small = runtime(&small);
    group.bench_function("boss_turn/runtime/12_states", |b| b.iter(|| turn(&mut at_small)));
    let mut at = runtime(&m);
    group.bench_function("boss_turn/runtime/1000_states", |b| b.iter(|| turn(&mut at)));

    let mut engine = AgentEngine::new(m.clone(), Options::default(), "s").unwrap();
    let mut events = Vec::new();
    engine.take(Command::start(), &mut events);
    engine_turn(&mut engine, &mut events);
    group.bench_function("boss_turn/engine/1000_states", |b| b.iter(|| engine_turn(&mut engine, &mut events)));

    let rest = runtime(&m);
    group.bench_function("snapshot/1000_states", |b| {
        b.iter(|| serde_json::to_vec(&rest.export_snapshot().unwrap()).unwrap())
    });
    let bytes = serde_json::to_vec(&rest.export_snapshot().unwrap()).unwrap();
    group.bench_function("restore/1000_states", |b| {
        b.iter_batched(
            || m.clone(),
            |m| {
                let snapshot: Snapshot = serde_json::from_slice(&bytes).unwrap();
                let mut runtime = Runtime::new(m, Options::default()).unwrap();
                runtime.restore(Session::root("s", "ring"), &snapshot).unwrap();
                runtime
            },
            BatchSize::SmallInput,
        )
    });
    group.finish();
    let value: Value = serde_json::from_slice(&bytes).unwrap();
    eprintln!(
        "a snapshot of the 1,000-state machine is {} bytes ({} keys)",
        bytes.len(),
        value.as_object().unwrap().len()
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
