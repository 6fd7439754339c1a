#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! Stepping throughput: a 100,000-line linear playbook, 10,000 menus of three options (choosing
//! 0), and 10,000 conditional lines (the driver answers each resolve from a map).
//!
//! Before timing, each scenario is played once under a counting allocator and the heap
//! allocations per step are printed, so BENCHMARKS.md can record them beside the times.
//!
//! Run: `cargo bench -p stagehand-runner --bench stepping`

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use stagehand_playbook::{smallvec, Condition, Edge, Fragment, Node, Playbook, Speaker};
use std::borrow::Cow;

use stagehand_runner::{step_into, Answer, Answers, Command, Entry, Event, PlayContext, PlayState};

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
        // SAFETY: `ptr` was allocated by `System` with this `layout` (every allocation goes
        // through `alloc` or `realloc` above).
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

fn speaker_book(nodes: Vec<Node>) -> Playbook {
    let mut playbook = Playbook::new("bench.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes = nodes;
    playbook
}

fn linear(lines: u32) -> Playbook {
    let mut nodes: Vec<Node> = (0..lines)
        .map(|i| Node::Line {
            speaker: 0,
            speech: vec![Fragment::text(format!("Line number {i}, said plainly."))].into(),
            condition: None,
            out: smallvec![Edge::Succession { target: i + 1 }],
        })
        .collect();
    nodes.push(Node::End);
    speaker_book(nodes)
}

fn menus(count: u32) -> Playbook {
    let mut nodes: Vec<Node> = (0..count)
        .map(|i| Node::Choice {
            ordered: false,
            out: (0..3)
                .map(|o| Edge::Option {
                    target: i + 1,
                    label: vec![Fragment::text(format!("Option {o}"))].into(),
                    condition: None,
                })
                .collect(),
        })
        .collect();
    nodes.push(Node::End);
    speaker_book(nodes)
}

fn conditional(lines: u32) -> Playbook {
    let mut nodes: Vec<Node> = (0..lines)
        .map(|i| Node::Line {
            speaker: 0,
            speech: vec![Fragment::text(format!("Conditional line {i}."))].into(),
            condition: Some(Condition::key(format!("flag{}", i % 100))),
            out: smallvec![Edge::Succession { target: i + 1 }],
        })
        .collect();
    nodes.push(Node::End);
    speaker_book(nodes)
}

/// Plays a playbook to its end, answering as a simple driver does; returns the steps taken.
fn play<'c>(context: &'c PlayContext<'_>, world: &HashMap<String, bool>, events: &mut Vec<Event<'c>>) -> usize {
    let mut state = PlayState::new();
    let mut steps = 0;
    // The driver keeps one buffer of answers and lends it to each supply.
    let mut buffer: Vec<Entry<'c>> = Vec::with_capacity(4);
    let mut command = Command::start();
    loop {
        events.clear();
        state = step_into(context, &state, command, events);
        steps += 1;
        command = match events.last() {
            Some(Event::Ended) => return steps,
            Some(Event::Offer { .. }) => Command::Choose(0),
            Some(Event::Resolve { questions }) => {
                buffer.clear();
                for question in questions.iter() {
                    let holds = world.get(question.key).copied().unwrap_or(false);
                    buffer.push((Cow::Borrowed(question.key), Answer::Truth(holds)));
                }
                Command::Supply(Answers::borrowed(&buffer))
            }
            Some(Event::Refused { explanation, .. }) => panic!("refused: {explanation}"),
            _ => Command::Next,
        };
    }
}

fn allocations_per_step(name: &str, playbook: &Playbook, world: &HashMap<String, bool>) {
    let context = PlayContext::new(playbook);
    let mut events = Vec::with_capacity(8);
    play(&context, world, &mut events); // warm the buffer
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let steps = play(&context, world, &mut events);
    let after = ALLOCATIONS.load(Ordering::Relaxed);
    println!("{name}: {steps} steps, {:.3} heap allocations per step", (after - before) as f64 / steps as f64);
}

fn world() -> HashMap<String, bool> {
    (0..100).map(|i| (format!("flag{i}"), i % 2 == 0)).collect()
}

fn bench(c: &mut Criterion) {
    let world = world();
    let linear_book = linear(100_000);
    let menu_book = menus(10_000);
    let conditional_book = conditional(10_000);
    allocations_per_step("linear 100,000 lines", &linear_book, &world);
    allocations_per_step("10,000 menus of 3", &menu_book, &world);
    allocations_per_step("10,000 conditional lines", &conditional_book, &world);

    let mut group = c.benchmark_group("stepping");
    group.sample_size(20);

    let context = PlayContext::new(&linear_book);
    group.throughput(Throughput::Elements(100_000));
    group.bench_function("linear 100k lines (elements = lines)", |b| {
        let mut events = Vec::with_capacity(8);
        b.iter(|| play(&context, &world, &mut events))
    });

    let context = PlayContext::new(&menu_book);
    group.throughput(Throughput::Elements(30_000));
    group.bench_function("10k menus x 3 options (elements = options)", |b| {
        let mut events = Vec::with_capacity(8);
        b.iter(|| play(&context, &world, &mut events))
    });

    let context = PlayContext::new(&conditional_book);
    group.throughput(Throughput::Elements(10_000));
    group.bench_function("10k conditional lines (elements = lines)", |b| {
        let mut events = Vec::with_capacity(8);
        b.iter(|| play(&context, &world, &mut events))
    });

    group.throughput(Throughput::Elements(100_000));
    group.bench_function("load: PlayContext::new for 100k lines (elements = nodes)", |b| {
        b.iter_batched(|| (), |()| PlayContext::new(&linear_book), BatchSize::SmallInput)
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default();
    targets = bench
}
criterion_main!(benches);
