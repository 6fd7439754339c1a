//! The generated ring machine and the instant fake ports of the `turns` bench, shared with the
//! `boss_turns` example (instruction counts under callgrind).

use serde_json::json;
use stagehand_agents::machine::{read_value, Machine};
use stagehand_agents::runtime::{Options, PlayerResult, PortAnswer, PortCall, Reply, Request, Runtime, Session};

/// The ring of the 1,000-state machine; a 12-state one (ring 4) runs beside it for comparison.
pub const RING: usize = 498;

pub fn machine(ring: usize) -> Machine {
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
pub fn port(call: &PortCall) -> PortAnswer {
    match call {
        PortCall::Player { .. } => PortAnswer::Player { result: PlayerResult::ok("Step done.") },
        PortCall::Judge { purpose, .. } if purpose.as_str() == "boss-input-classification" => {
            PortAnswer::Judge { text: r#"{"type": "NEXT"}"#.into() }
        }
        PortCall::Judge { .. } => PortAnswer::Judge { text: r#"{"guard": "done"}"#.into() },
        other => panic!("no such call here: {other:?}"),
    }
}

pub fn reply(request: &Request) -> (Reply, u64) {
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
pub fn runtime(m: &Machine) -> Runtime {
    let mut runtime = Runtime::new(m.clone(), Options::default()).unwrap();
    let step = runtime.init(Session::root("s", "ring"), 0).unwrap();
    runtime.complete(step, reply).unwrap();
    let step = runtime.handle_boss_input("the task", 0).unwrap();
    runtime.complete(step, reply).unwrap();
    assert_eq!(runtime.state().state_id.as_deref(), Some("r0"));
    runtime
}

pub fn turn(runtime: &mut Runtime) {
    let step = runtime.handle_boss_input("go on", 1).unwrap();
    let (emitted, _) = runtime.complete(step, reply).unwrap();
    std::hint::black_box(emitted);
}

/// The `boss_turns` examples' main: `RING TURNS` from the command line.
pub fn play_from_args() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let (Some(Ok(ring_size)), Some(Ok(turns))) = (args.next(), args.next()) else {
        eprintln!("usage: boss_turns RING TURNS (RING 498 is the 1,000-state machine)");
        std::process::exit(2);
    };
    let machine = machine(ring_size);
    let mut at = runtime(&machine);
    for _ in 0..turns {
        turn(&mut at);
    }
    println!("{turns} turns; at {:?}", at.state().state_id);
}
