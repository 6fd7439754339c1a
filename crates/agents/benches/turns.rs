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
use serde_json::{json, Value};
use stagehand_agents::machine::{read_value, Machine};
use stagehand_agents::runtime::{
    Options, PlayerResult, PortAnswer, PortCall, Reply, Request, Runtime, Session, Snapshot,
};
use stagehand_agents::AgentEngine;
use stagehand_protocol::{Answer, Answers, Command, Engine, OwnedEvent};

/// The ring of the 1,000-state machine; a 12-state one (ring 4) runs beside it for comparison.
const RING: usize = 498;

fn machine(ring: usize) -> Machine {
    let mut states = vec![json!({
        "id": "ready", "description": "Waiting for a task.", "tags": ["parked"],
        "on": [
            {"event": "START", "assign": [{"set": {"field": "task", "value": {"event": "task"}}}], "target": "p0"},
            {"event": "STOP", "target": "done"}
        ]
    })];
    for i in 0..ring {
        states.push(json!({
            "id": format!("p{i}"), "description": format!("Step {i} of the work."), "tags": ["busy"],
            "invoke": {"kind": "player", "player": "worker", "prompt": format!("Do step {i} of <task>."), "inputs": ["task"]},
            "on": [{"guard": "done", "target": format!("r{i}")}]
        }));
        states.push(json!({
            "id": format!("r{i}"), "description": format!("Step {i} is done; waiting for the Boss."), "tags": ["parked"],
            "on": [{"event": "NEXT", "target": format!("p{}", (i + 1) % ring)}]
        }));
    }
    states.push(json!({"id": "awaitBossReply", "description": "Waiting for the Boss's answer.", "tags": ["parked"]}));
    states.push(json!({"id": "failed", "description": "A step failed.", "tags": ["parked"],
        "on": [{"event": "START", "assign": [{"set": {"field": "task", "value": {"event": "task"}}}], "target": "p0"}]}));
    states.push(json!({"id": "done", "description": "Stopped.", "final": true}));
    let document = json!({
        "id": "ring", "initial": "ready", "description": "A ring of steps.",
        "context": [{"name": "task", "type": "string", "initial": ""}],
        "events": [
            {"type": "START", "description": "The Boss gives the task.", "fields": [{"name": "task", "source": "text", "required": true}]},
            {"type": "NEXT", "description": "The Boss asks for the next step."},
            {"type": "STOP", "description": "The Boss stops."}
        ],
        "entryEvent": {"type": "START", "textField": "task"},
        "states": states
    });
    let machine = read_value(document).unwrap_or_else(|refusal| panic!("the generated machine is refused: {refusal}"));
    assert_eq!(machine.states.len(), 2 * ring + 4);
    machine
}

/// The instant fake ports.
fn port(call: &PortCall) -> PortAnswer {
    match call {
        PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok("Step done.") },
        PortCall::Judge { purpose, .. } if purpose.as_str() == "boss-input-classification" => {
            PortAnswer::Judge { text: r#"{"type": "NEXT"}"#.into() }
        }
        PortCall::Judge { .. } => PortAnswer::Judge { text: r#"{"guard": "done"}"#.into() },
        other => panic!("no such call here: {other:?}"),
    }
}

fn reply(request: &Request) -> (Reply, u64) {
    let reply = match request {
        Request::Drain => Reply::Drained,
        Request::Call { call } => match port(call) {
            PortAnswer::Player { result } => Reply::Player { result },
            PortAnswer::Judge { text } => Reply::Judge { text },
            other => panic!("{other:?}"),
        },
    };
    (reply, 1)
}

/// A runtime past its first turn, resting at `r0`.
fn runtime(m: &Machine) -> Runtime {
    let mut runtime = Runtime::new(m.clone(), Options::default()).unwrap();
    let step = runtime.init(Session::root("s", "ring"), 0).unwrap();
    runtime.complete(step, reply).unwrap();
    let step = runtime.handle_boss_input("the task", 0).unwrap();
    runtime.complete(step, reply).unwrap();
    assert_eq!(runtime.state().state_id.as_deref(), Some("r0"));
    runtime
}

fn turn(runtime: &mut Runtime) {
    let step = runtime.handle_boss_input("go on", 1).unwrap();
    let (emitted, _) = runtime.complete(step, reply).unwrap();
    criterion::black_box(emitted);
}

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
