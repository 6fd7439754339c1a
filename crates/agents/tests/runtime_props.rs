//! Properties of the runtime over random machines, random port results and random aborts:
//! it never panics, every `*.started` trace has exactly one `*.finished`, the trace is
//! contiguous, and a snapshot restored at any safe point plays the same future.

use proptest::prelude::*;
use serde_json::{json, Value};
use stagehand_agents::machine::{read_value, Machine};
use stagehand_agents::runtime::{
    Emission, Next, NormalizedError, PlaybookCallResult, PlaybookCallStart, PlayerResult, PortCall, Reply, Request,
    Runtime, Session, Settled, Step,
};

/// One working state of a random machine.
#[derive(Debug, Clone)]
enum Work {
    Player(u8),
    Captain,
    Script,
    Playbook,
}

fn work() -> impl Strategy<Value = Work> {
    prop_oneof![
        4 => (0u8..3).prop_map(Work::Player),
        1 => Just(Work::Captain),
        1 => Just(Work::Script),
        1 => Just(Work::Playbook),
    ]
}

/// A random machine: `ready`, working states `w0…`, an optional parallel group, the
/// convention states and `done`; every guard goes to a random state.
fn machine() -> impl Strategy<Value = Machine> {
    (
        prop::collection::vec((work(), 1usize..4, prop::collection::vec(0usize..64, 4)), 1..5),
        any::<bool>(),
        prop::collection::vec(0usize..64, 3),
    )
        .prop_map(|(works, group, jumps)| build(&works, group, &jumps))
}

fn build(works: &[(Work, usize, Vec<usize>)], group: bool, jumps: &[usize]) -> Machine {
    let n = works.len();
    let mut targets: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
    targets.extend(["done", "failed", "awaitBossReply", "ready"].map(String::from));
    if group {
        targets.push("both".into());
    }
    let pick = |k: usize| targets[k % targets.len()].clone();
    let mut states = vec![json!({"id": "ready", "description": "Idle.", "tags": ["parked"],
        "on": [{"event": "START", "assign": [{"set": {"field": "task", "value": {"event": "task"}}}], "target": "w0"}]})];
    for (i, (w, k, picks)) in works.iter().enumerate() {
        let guards: Vec<String> = (0..*k).map(|j| format!("g{j}")).collect();
        let results: Vec<Value> =
            guards.iter().map(|g| json!({"guard": g, "description": format!("Outcome {g}.")})).collect();
        let (invoke, guards) = match w {
            Work::Player(p) => (
                json!({"kind": "player", "player": format!("p{p}"), "prompt": "Do <task>.", "results": results}),
                guards,
            ),
            Work::Captain => (json!({"kind": "captain", "prompt": "Lead <task>.", "results": results}), guards),
            Work::Script => {
                (json!({"kind": "script", "command": "true", "timeoutMs": 1000}), vec!["ok".into(), "failed".into()])
            }
            Work::Playbook => {
                (json!({"kind": "playbook", "id": "child", "text": {"context": "task"}}), vec!["done".into()])
            }
        };
        let on: Vec<Value> = guards
            .iter()
            .enumerate()
            .map(|(j, g)| {
                json!({"guard": g, "when": [{"field": "rounds", "op": "lt", "value": 6}],
                       "assign": [{"increment": {"field": "rounds"}}], "target": pick(picks[j % picks.len()])})
            })
            .collect();
        let mut on = on;
        on.push(json!({"guard": guards[0], "target": "done"}));
        let tags = json!(["busy"]);
        states.push(
            json!({"id": format!("w{i}"), "description": format!("Working {i}."), "sourceItem": format!("W-{i}"),
            "tags": tags, "invoke": invoke, "on": on}),
        );
    }
    if group {
        states.push(json!({"id": "both", "description": "Both at once.", "tags": ["busy"], "parallel": ["ma", "mb"],
            "on": [{"guard": "done", "target": pick(jumps[0])}]}));
        for (id, p) in [("ma", "alice"), ("mb", "bob")] {
            states.push(json!({"id": id, "description": format!("{p} works."), "tags": ["busy"],
                "invoke": {"kind": "player", "player": p, "prompt": "Propose."}}));
        }
    }
    states.push(json!({"id": "awaitBossReply", "description": "Waiting for the Boss.", "tags": ["parked"],
        "on": [{"event": "START", "target": "w0"}]}));
    states.push(json!({"id": "failed", "description": "Failed.", "tags": ["parked"],
        "on": [{"event": "START", "target": "w0"}]}));
    states.push(json!({"id": "done", "description": "Done.", "final": true, "output": [{"name": "rounds", "value": {"context": "rounds"}}]}));
    let interrupts: Vec<Value> = jumps.iter().map(|k| json!({"target": format!("w{}", k % n)})).collect();
    let mut interrupts = interrupts;
    interrupts.dedup();
    interrupts.sort_by_key(Value::to_string);
    interrupts.dedup();
    let doc = json!({
        "id": "random", "initial": "ready",
        "context": [{"name": "task", "type": "string", "initial": ""}, {"name": "rounds", "type": "number", "initial": 0}],
        "events": [{"type": "START", "fields": [{"name": "task", "source": "text", "required": true}]}],
        "states": states, "bossInterrupt": interrupts,
        "entryEvent": {"type": "START", "textField": "task"},
    });
    read_value(doc).unwrap_or_else(|r| panic!("the generator made a machine the reader refuses: {r:?}"))
}

/// The scripted host: answers from a stream of seeds, aborting a boundary that runs long.
struct Host<'s> {
    seeds: &'s [u8],
    cursor: usize,
}

impl Host<'_> {
    fn next(&mut self) -> u8 {
        let s = self.seeds.get(self.cursor % self.seeds.len().max(1)).copied().unwrap_or(0);
        self.cursor += 1;
        s.wrapping_add((self.cursor / self.seeds.len().max(1)) as u8)
    }

    fn reply(&mut self, request: &Request, answers: usize) -> Reply {
        if answers > 40 {
            return Reply::Abort;
        }
        let s = self.next();
        let err = |m: &str| NormalizedError::new(m);
        match request {
            Request::Drain => match s % 10 {
                0 => Reply::Abort,
                1 => Reply::SinkFailed { error: err("sink") },
                _ => Reply::Drained,
            },
            Request::Call { call } => match call {
                PortCall::Player { .. } | PortCall::Captain { .. } => {
                    let result = match s % 12 {
                        0 => return Reply::Abort,
                        1 => return Reply::Threw { error: err("port") },
                        2 => return Reply::SinkFailed { error: err("sink") },
                        3 => PlayerResult {
                            status: stagehand_agents::runtime::CallStatus::Ok,
                            resume_token: None,
                            final_text: Some(" ".into()),
                            error: None,
                        },
                        4 => PlayerResult {
                            status: stagehand_agents::runtime::CallStatus::Error,
                            resume_token: None,
                            final_text: None,
                            error: Some("e".into()),
                        },
                        _ => PlayerResult {
                            status: stagehand_agents::runtime::CallStatus::Ok,
                            resume_token: s.is_multiple_of(2).then(|| format!("t{s}")),
                            final_text: Some(format!("text {s}")),
                            error: None,
                        },
                    };
                    if matches!(call, PortCall::Player { .. }) {
                        Reply::Player { result }
                    } else {
                        Reply::Captain { result }
                    }
                }
                PortCall::Judge { purpose, .. } => {
                    let classify = matches!(purpose, stagehand_agents::runtime::JudgePurpose::BossInputClassification);
                    let text = if classify {
                        match s % 6 {
                            0 => json!({"type": "START"}).to_string(),
                            1 => json!({"type": "NO_ACTION"}).to_string(),
                            2 => json!({"type": "BOSS_REPLY"}).to_string(),
                            3 => json!({"type": "BOSS_INTERRUPT", "targetId": format!("w{}", s % 3)}).to_string(),
                            4 => "no idea".into(),
                            _ => return Reply::Abort,
                        }
                    } else {
                        match s % 9 {
                            0..=4 => json!({"guard": format!("g{}", s % 3)}).to_string(),
                            5 => json!({"guard": "needsBossReply", "question": "Which?"}).to_string(),
                            6 => json!({"guard": "done"}).to_string(),
                            7 => "{\"guard\": \"g0\",".into(),
                            _ => return Reply::Abort,
                        }
                    };
                    Reply::Judge { text }
                }
                PortCall::Script { .. } => Reply::Script { exit_code: [Some(0), Some(1), None][(s % 3) as usize] },
                PortCall::Playbook { .. } => match s % 4 {
                    0 => Reply::Playbook {
                        start: PlaybookCallStart::Settled {
                            result: PlaybookCallResult::Ok { child_session_id: "c".into(), state: None, output: None },
                        },
                    },
                    1 => Reply::Playbook {
                        start: PlaybookCallStart::Settled { result: PlaybookCallResult::Error { error: err("child") } },
                    },
                    2 => Reply::Playbook { start: PlaybookCallStart::Suspended { child_session_id: "c".into() } },
                    _ => Reply::Abort,
                },
                PortCall::DisposeChild { .. } => Reply::Drained,
            },
        }
    }
}

/// What one host action produced: the emissions, then how it settled (or why it threw).
type Outcome = (Vec<Emission>, String);

/// Plays one host action to its settlement.
fn act(rt: &mut Runtime, host: &mut Host<'_>, op: u8, clock: u64) -> Outcome {
    let started = match op % 10 {
        0..=4 => rt.handle_boss_input("go on", clock),
        5 => rt.handle_boss_input(" ", clock),
        6 | 7 => {
            let action = rt.describe().ok().and_then(|v| v.actions.first().map(|a| a.id.clone()));
            rt.apply(action.as_deref().unwrap_or("jump:nowhere"), &format!("k{}", op % 3), clock)
        }
        8 => match rt.pending_call() {
            Some(c) => rt.resume_playbook_call(
                &c.call_id,
                PlaybookCallResult::Ok { child_session_id: c.child_session_id, state: None, output: None },
                clock,
            ),
            None => rt.handle_boss_input("resume", clock),
        },
        _ => rt.handle_boss_input("", clock),
    };
    let mut out = Vec::new();
    let mut step = match started {
        Ok(step) => step,
        Err(e) => return (out, format!("threw: {e}")),
    };
    let mut answers = 0;
    loop {
        let Step { emitted, next } = step;
        out.extend(emitted);
        match next {
            Next::Settled { settled } => return (out, format!("{settled:?}")),
            Next::Request { request } => {
                answers += 1;
                let reply = host.reply(&request, answers);
                step = rt.answer(reply, clock + answers as u64).expect("the host's reply fits the request");
            }
        }
    }
}

fn init(m: &Machine) -> (Runtime, Vec<Emission>) {
    let mut rt = Runtime::new(m.clone(), Default::default()).expect("a rest-point initial state");
    let step = rt.init(Session::root("s", "random"), 1).expect("init");
    let mut out = step.emitted;
    let step = rt.answer(Reply::Drained, 1).expect("drain");
    out.extend(step.emitted);
    assert!(matches!(step.next, Next::Settled { settled: Settled::Init { result: Ok(()) } }));
    (rt, out)
}

/// Every start has exactly one finish (a pending nested call excepted); sequences run 1, 2, ….
fn check_trace(all: &[Emission], pending: Option<String>) -> Result<(), TestCaseError> {
    let mut open: Vec<(String, String)> = Vec::new();
    let mut seq = 0;
    for e in all {
        let Emission::Trace { event } = e else { continue };
        prop_assert_eq!(event.sequence, seq + 1);
        seq = event.sequence;
        let call = event.call_id.clone().unwrap_or_default();
        if let Some(kind) =
            event.trace_type.strip_suffix(".started").filter(|_| !event.trace_type.starts_with("session"))
        {
            prop_assert!(!open.iter().any(|(k, c)| k == kind && *c == call), "{} started twice", call);
            open.push((kind.to_owned(), call));
        } else if let Some(kind) = event.trace_type.strip_suffix(".finished") {
            let at = open.iter().position(|(k, c)| k == kind && *c == call);
            prop_assert!(at.is_some(), "{} {} finished without a start", kind, call);
            open.remove(at.unwrap_or_default());
        }
    }
    for (kind, call) in open {
        prop_assert!(kind == "playbook.call" && Some(&call) == pending.as_ref(), "{} {} never finished", kind, call);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn random_sessions_pair_their_traces_and_restore_to_the_same_future(
        m in machine(),
        ops in prop::collection::vec(any::<u8>(), 1..8),
        seeds in prop::collection::vec(any::<u8>(), 1..48),
    ) {
        let (mut rt, mut all) = init(&m);
        let mut host = Host { seeds: &seeds, cursor: 0 };
        // (op index, host cursor, snapshot JSON) at every safe point.
        let mut forks = Vec::new();
        let mut per_op = Vec::new();
        for (i, op) in ops.iter().enumerate() {
            if let Some(snap) = rt.export_snapshot_with_process_state() {
                forks.push((i, host.cursor, serde_json::to_string(&snap).expect("a snapshot serialises")));
            }
            let outcome = act(&mut rt, &mut host, *op, 10 + i as u64 * 100);
            all.extend(outcome.0.clone());
            per_op.push(outcome);
        }
        check_trace(&all, rt.pending_call().map(|c| c.call_id))?;
        for (i, cursor, text) in forks {
            let snap = stagehand_agents::runtime::parse_snapshot(&text).expect("a snapshot reads back");
            let mut fork = Runtime::new(m.clone(), Default::default()).expect("runtime");
            fork.restore(Session::root("s", "random"), &snap).expect("its own snapshot restores");
            let mut fork_host = Host { seeds: &seeds, cursor };
            for (j, op) in ops.iter().enumerate().skip(i) {
                let outcome = act(&mut fork, &mut fork_host, *op, 10 + j as u64 * 100);
                prop_assert_eq!(&outcome, &per_op[j], "the future after op {} differs at op {}", i, j);
            }
            prop_assert_eq!(fork.state(), rt.state());
            prop_assert_eq!(format!("{:?}", fork.describe()), format!("{:?}", rt.describe()));
            prop_assert_eq!(fork.export_snapshot_with_process_state(), rt.export_snapshot_with_process_state());
        }
    }
}
