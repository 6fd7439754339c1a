#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! The seam's and the host session's costs, side by side in one run (issue 12 item 9):
//!
//! - on a 100,000-line linear playbook, one `next` from a run standing at a line: `step_into`
//!   called directly, and `step` (the pure function the issue names, its events owned); the same step through the `Engine` trait (`take_lent`, and the owned
//!   `take`); a whole host-session turn as a host takes it (`look` at the view, the first
//!   action's id, `act` under a fresh key, the receipt's outcome and said words read, the trace
//!   recorded and dropped), with the trace also written as JSON lines; the same turn with the
//!   view and the receipt written out in full (`describe_into` + `apply_into`), and through the
//!   owned `describe` + `apply`; and the turn of a session that keeps only its last receipt (the
//!   terminal player's, decision H39);
//! - a session turn on a generated ChatMapper project of 10,000 entries (the first action each
//!   turn: `next` at a line, `choose:0` at a menu);
//! - at the end of a long run (a whole playthrough of the 100,000 lines, one receipt a turn):
//!   the snapshot's size, writing it, and reading it back into a fresh engine;
//! - making an engine for an open document: preparing the playbook, or borrowing a prepared one.
//!
//! A session that reaches the end is replaced by a fresh one outside the timing. Before timing,
//! the heap allocations per turn are counted and printed.
//!
//! Run: `cargo bench -p stagehand-documents --bench host_turn`

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use serde_json::{json, Value};
use stagehand_chatmapper::{load, ChatMapperEngine, Options, Project};
use stagehand_playbook::{smallvec, Edge, Fragment, Node, Playbook, Speaker};
use stagehand_protocol::{Command, Engine, Receipt, View};
use stagehand_runner::{step, step_into, PlayContext, PlayState, PreparedPlaybook, RunnerEngine, Situation};
use stagehand_session::host::{ActionId, Session, SessionSnapshot};

/// Counts allocations, delegating the work to the system allocator.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the only addition is a relaxed atomic increment, which allocates
// nothing and cannot unwind.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's guarantees for `layout` are passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as for `dealloc`, and the caller's guarantees for `new_size` pass on unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const LINES: u32 = 100_000;

fn linear(lines: u32) -> Playbook {
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

fn link(from: i64, to: i64) -> Value {
    json!({"OriginConvoID": 1, "OriginDialogID": from, "DestinationConvoID": 1, "DestinationDialogID": to})
}

fn entry(id: i64, fields: Value, links: Vec<Value>, condition: &str, script: &str) -> Value {
    json!({"ID": id, "IsRoot": id == 0, "Fields": fields, "OutgoingLinks": links,
           "ConditionsString": condition, "UserScript": script})
}

/// The ChatMapper bench's project: scenes of four entries (a two-segment line offering three
/// conditional choices with scripts, each leading to the next scene's line), 10,000 entries
/// and the root for 2,500 scenes.
fn scenes(count: i64) -> Project {
    let mut nodes = vec![entry(0, json!({"Title": "START"}), vec![link(0, 1)], "", "")];
    for scene in 0..count {
        let line = 1 + scene * 4;
        let choices = (1..=3).map(|c| link(line, line + c)).collect();
        let text = format!("Scene {scene}, score [var=score].|What now?");
        nodes.push(entry(line, json!({"Actor": "2", "Dialogue Text": text}), choices, "", ""));
        for c in 1..=3 {
            let links = if scene + 1 < count { vec![link(line + c, line + 4)] } else { Vec::new() };
            let fields =
                json!({"Actor": "1", "Menu Text": format!("Option {c}"), "Dialogue Text": format!("I pick {c}.")});
            let condition = format!("Variable[\"score\"] >= {}", -c);
            nodes.push(entry(line + c, fields, links, &condition, "Variable[\"score\"] = Variable[\"score\"] + 1"));
        }
    }
    let project = json!({"Title": "Generated", "Assets": {
        "Actors": [{"ID": 1, "Fields": {"Name": "Player"}}, {"ID": 2, "Fields": {"Name": "Guide"}}],
        "UserVariables": [{"Fields": {"Name": "score", "Initial Value": "0"}}],
        "Conversations": [{"ID": 1, "Fields": {"Title": "Generated"}, "DialogNodes": nodes}]}});
    load(&serde_json::to_vec(&project).expect("serialisable"), "generated.json").expect("loads")
}

/// A host that keeps one view, one receipt and one key buffer, and takes one turn at a time:
/// the first action the view offers, under a fresh key; `lazy`, it looks at the view and reads
/// the receipt where the session keeps them ([`Session::look`], [`Session::act`]), else it has
/// both written out in full.
struct Host<E: Engine> {
    session: Session<E>,
    view: View,
    receipt: Receipt,
    key: String,
    action: String,
    turn: u64,
    lines: Vec<u8>,
    lazy: bool,
    /// Whether its keys come in no order (random hexadecimal, as the web page's), not counted up.
    scattered: bool,
    said: usize,
}

impl<E: Engine> Host<E> {
    fn new(session: Session<E>) -> Self {
        Host {
            session,
            view: View::empty(),
            receipt: Receipt::Rejected { reason: String::new() },
            key: String::new(),
            action: String::new(),
            turn: 0,
            lines: Vec::new(),
            lazy: false,
            scattered: false,
            said: 0,
        }
    }

    fn lazy(session: Session<E>) -> Self {
        Host { lazy: true, ..Host::new(session) }
    }

    /// The host's own key, `k` and the turn's number (`write!` would cost more than some of
    /// what is measured), or, `scattered`, sixteen hexadecimal digits of a mix of the turn's
    /// number (splitmix64's finaliser): keys in no order, which the session finds through its
    /// hash table rather than its ascending run (decision H73).
    fn next_key(&mut self) {
        self.turn += 1;
        self.key.clear();
        if self.scattered {
            let mut z = self.turn.wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            for shift in (0..16).rev() {
                self.key.push(char::from(b"0123456789abcdef"[(z >> (4 * shift)) as usize & 15]));
            }
        } else {
            self.key.push('k');
            self.key.push_str(itoa::Buffer::new().format(self.turn));
        }
    }

    /// One turn through `look` and `act`; false when nothing is left to do but undo and restart.
    fn lazy_turn(&mut self) -> bool {
        let look = self.session.look();
        let Some(first) = look.actions().next().filter(|a| !matches!(a, ActionId::Undo | ActionId::Restart)) else {
            return false;
        };
        let id = match first.as_static() {
            Some(id) => id,
            None => {
                self.action.clear();
                look.write_id(first, &mut self.action);
                self.action.as_str()
            }
        };
        let key = std::mem::take(&mut self.key);
        let applied = self.session.act(id, &key, self.turn);
        let executed = applied.is_executed();
        for event in applied.events() {
            self.said += black_box(event.text).map_or(0, str::len);
        }
        self.key = key;
        executed
    }

    /// One turn; false when nothing is left to do but undo and restart.
    fn turn(&mut self, trace: Trace) -> bool {
        self.next_key();
        if self.lazy {
            let executed = self.lazy_turn();
            self.finish(trace);
            return executed;
        }
        self.session.describe_into(&mut self.view);
        let Some(first) = self.view.actions.first().filter(|a| a.id != "undo" && a.id != "restart") else {
            return false;
        };
        self.action.clear();
        self.action.push_str(&first.id);
        self.session.apply_into(&self.action, &self.key, self.turn, &mut self.receipt);
        self.finish(trace);
        matches!(self.receipt, Receipt::Executed { .. })
    }

    /// What a host does with the turn's trace.
    fn finish(&mut self, trace: Trace) {
        match trace {
            Trace::Dropped => self.session.discard_trace(),
            Trace::Written => {
                self.lines.clear();
                self.session.take_trace_lines(&mut self.lines);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Trace {
    Dropped,
    Written,
}

/// Times `iters` turns, replacing the session with `fresh()` outside the timing when it ends.
fn timed_turns<E: Engine>(
    host: &mut Host<E>,
    iters: u64,
    trace: Trace,
    mut fresh: impl FnMut() -> Session<E>,
) -> Duration {
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let start = Instant::now();
        while left > 0 && host.turn(trace) {
            left -= 1;
        }
        total += start.elapsed();
        if left > 0 {
            host.session = fresh();
        }
    }
    total
}

fn count<T>(what: &str, turns: usize, mut f: impl FnMut() -> T) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    for _ in 0..turns {
        black_box(f());
    }
    let made = ALLOCATIONS.load(Ordering::Relaxed) - before;
    println!("{what}: {:.3} allocations per turn ({made} in {turns} turns)", made as f64 / turns as f64);
}

fn turns(c: &mut Criterion) {
    let playbook = linear(LINES);
    let prepared = PreparedPlaybook::new(&playbook);
    let fresh = || Session::new(RunnerEngine::with(&prepared, 0), "bench", 0).expect("a session");

    // Allocations per turn, counted once a run has warmed its buffers.
    {
        let mut host = Host::new(fresh());
        for _ in 0..1_000 {
            host.turn(Trace::Written);
        }
        let mut lazy = Host::lazy(fresh());
        for _ in 0..1_000 {
            lazy.turn(Trace::Written);
        }
        count("session turn (look + act, trace dropped)", 10_000, || lazy.turn(Trace::Dropped));
        count("session turn (describe_into + apply_into, trace written)", 10_000, || host.turn(Trace::Written));
        count("session turn (describe_into + apply_into, trace dropped)", 10_000, || host.turn(Trace::Dropped));
        let mut session = fresh();
        let mut turn = 0u64;
        count("session turn (describe + apply, owned)", 10_000, || {
            turn += 1;
            let view = session.describe();
            session.discard_trace();
            let receipt = session.apply(&view.actions[0].id, &format!("k{turn}"), turn);
            session.discard_trace();
            receipt
        });
        let mut engine = RunnerEngine::with(&prepared, 0);
        engine.take(Command::start(), &mut Vec::new());
        let mut events = 0usize;
        count("RunnerEngine::take_lent", 10_000, || engine.take_lent(Command::Next, &mut |_| events += 1));
    }

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

    let mut state = PlayState::new();
    group.bench_function("step, directly (owned events, allocated each step)", |b| {
        b.iter(|| {
            let command =
                if matches!(state.situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            let result = step(&context, &state, command);
            state = black_box(result).state;
        })
    });

    let mut engine = RunnerEngine::with(&prepared, 0);
    let mut reported = 0usize;
    group.bench_function("RunnerEngine::take_lent, through the trait", |b| {
        b.iter(|| {
            let command =
                if matches!(engine.state().situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            engine.take_lent(command, &mut |event| reported += black_box(event).is_request() as usize);
        })
    });

    let mut engine = RunnerEngine::with(&prepared, 0);
    let mut owned = Vec::new();
    group.bench_function("RunnerEngine::take, owned events", |b| {
        b.iter(|| {
            owned.clear();
            let command =
                if matches!(engine.state().situation, Situation::AtNode(_)) { Command::Next } else { Command::start() };
            engine.take(command, &mut owned);
        })
    });

    let mut host = Host::lazy(fresh());
    group.bench_function("Session turn: look + act", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Dropped, fresh))
    });
    let mut host = Host { scattered: true, ..Host::lazy(fresh()) };
    group.bench_function("Session turn: look + act, keys in no order", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Dropped, fresh))
    });
    // The terminal player's configuration (decision H39): its keys are fresh and never leave the
    // process, so the session keeps only the last receipt.
    let last_only = || {
        let mut session = fresh();
        session.retain_receipts(false);
        session
    };
    let mut host = Host::lazy(last_only());
    group.bench_function("Session turn: look + act, only the last receipt kept", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Dropped, last_only))
    });
    let mut host = Host::lazy(fresh());
    group.bench_function("Session turn: look + act, its trace written as JSON lines", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Written, fresh))
    });
    let mut host = Host::new(fresh());
    group.bench_function("Session turn: describe_into + apply_into", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Dropped, fresh))
    });
    let mut host = Host::new(fresh());
    group.bench_function("Session turn, its trace written as JSON lines", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Written, fresh))
    });
    let mut session = fresh();
    let mut turn = 0u64;
    group.bench_function("Session turn: describe + apply, owned view and receipt", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let start = Instant::now();
                turn += 1;
                let view = session.describe();
                let receipt = session.apply(&view.actions[0].id, &format!("k{turn}"), turn);
                session.discard_trace();
                let ended = view.actions[0].id != "next" || !matches!(receipt, Receipt::Executed { .. });
                black_box(receipt);
                total += start.elapsed();
                if ended || session.describe().actions[0].id != "next" {
                    session = fresh();
                }
            }
            total
        })
    });
    group.finish();

    // ChatMapper: a session turn on 10,000 entries.
    let project = scenes(2_500);
    let chatmapper = || {
        let engine = ChatMapperEngine::new(project.clone(), Options::default()).expect("an engine");
        Session::new(engine, "bench", 0).expect("a session")
    };
    let mut group = c.benchmark_group("a turn on a 10,000-entry ChatMapper project");
    let mut host = Host::lazy(chatmapper());
    group.bench_function("Session turn: look + act", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Dropped, chatmapper))
    });
    let mut host = Host::new(chatmapper());
    group.bench_function("Session turn: describe_into + apply_into", |b| {
        b.iter_custom(|iters| timed_turns(&mut host, iters, Trace::Dropped, chatmapper))
    });
    group.finish();

    long_run(c, &playbook, &prepared, &project);
}

/// Snapshot and restore at the end of a long run, and making engines.
fn long_run(c: &mut Criterion, playbook: &Playbook, prepared: &PreparedPlaybook<'_>, project: &Project) {
    let mut host = Host::new(Session::new(RunnerEngine::with(prepared, 0), "long", 0).expect("a session"));
    while host.turn(Trace::Dropped) {}
    let mut session = host.session;
    let mut bytes = Vec::new();
    session.write_snapshot(&mut bytes).expect("a snapshot");
    println!(
        "DialogueDown, after {} turns: snapshot {} bytes ({} journal moves, {} receipts)",
        host.turn,
        bytes.len(),
        session.journal().len(),
        session.receipt_count()
    );

    let mut group = c.benchmark_group("the end of a 100,000-turn run");
    group.sample_size(10);
    let mut out = Vec::new();
    group.bench_function("write_snapshot (JSON)", |b| {
        b.iter(|| {
            out.clear();
            session.write_snapshot(&mut out).expect("a snapshot");
        })
    });
    group.bench_function("snapshot() then serde_json::to_vec", |b| {
        b.iter(|| serde_json::to_vec(&session.snapshot().expect("a snapshot")).expect("JSON"))
    });
    group.bench_function("read JSON and restore on a prepared playbook", |b| {
        b.iter(|| {
            let snapshot: SessionSnapshot<_> = serde_json::from_slice(&bytes).expect("it reads");
            Session::restore(RunnerEngine::with(prepared, 0), snapshot).expect("it restores")
        })
    });
    group.finish();

    // ChatMapper after a whole playthrough.
    let engine = ChatMapperEngine::new(project.clone(), Options::default()).expect("an engine");
    let mut host = Host::new(Session::new(engine, "long", 0).expect("a session"));
    while host.turn(Trace::Dropped) {}
    let mut session = host.session;
    let mut chat_bytes = Vec::new();
    session.write_snapshot(&mut chat_bytes).expect("a snapshot");
    println!(
        "ChatMapper, after {} turns: snapshot {} bytes ({} journal moves, {} receipts)",
        host.turn,
        chat_bytes.len(),
        session.journal().len(),
        session.receipt_count()
    );
    let mut group = c.benchmark_group("the end of a 10,000-entry ChatMapper run");
    group.sample_size(10);
    group.bench_function("write_snapshot (JSON)", |b| {
        b.iter(|| {
            out.clear();
            session.write_snapshot(&mut out).expect("a snapshot");
        })
    });
    group.bench_function("read JSON and restore on a fresh engine", |b| {
        b.iter_batched(
            || ChatMapperEngine::new(project.clone(), Options::default()).expect("an engine"),
            |engine| {
                let snapshot: SessionSnapshot<_> = serde_json::from_slice(&chat_bytes).expect("it reads");
                Session::restore(engine, snapshot).expect("it restores")
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();

    let mut group = c.benchmark_group("an engine for an open 100,000-line playbook");
    group.sample_size(10);
    group.bench_function("RunnerEngine::new (prepares the playbook)", |b| {
        b.iter(|| RunnerEngine::new(black_box(playbook), 0))
    });
    let shared = Arc::new(PreparedPlaybook::new(playbook));
    group.bench_function("RunnerEngine::with (borrows a prepared playbook)", |b| {
        b.iter(|| RunnerEngine::with(black_box(prepared), 0))
    });
    group.bench_function("RunnerEngine::shared (an Arc of a prepared playbook)", |b| {
        b.iter(|| RunnerEngine::shared(Arc::clone(black_box(&shared)), 0))
    });
    group.finish();
}

criterion_group!(benches, turns);
criterion_main!(benches);
