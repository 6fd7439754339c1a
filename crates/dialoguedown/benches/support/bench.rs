//! The compile bench's body, shared by the bench on the system allocator and the bench on the
//! allocator the `stagehand` command ships with.

use criterion::{Criterion, Throughput};
use stagehand_dialoguedown::{compile, Options};

#[path = "script.rs"]
mod script;

/// Benches compiling the generated ~10 MB script three ways, as the group `name`.
pub fn compile_group(c: &mut Criterion, name: &str) {
    let source = script::script(10 * 1024 * 1024);
    let check = compile(&source, "bench.dialogue.md", &Options::default());
    assert!(check.playbook.is_some(), "the generated script compiles: {:?}", check.diagnostics.first());
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(source.len() as u64));
    group.sample_size(10);
    // Compiling and letting the playbook go, as `stagehand compile` does.
    group.bench_function("mixed-10MB", |b| b.iter(|| compile(&source, "bench.dialogue.md", &Options::default())));
    // Compiling a playbook to keep, as a host does: its drop falls outside the timing.
    group.bench_function("mixed-10MB-kept", |b| {
        b.iter_with_large_drop(|| compile(&source, "bench.dialogue.md", &Options::default()))
    });
    // All on the calling thread, as a host that allows no threads gets it.
    let one_thread = Options { one_thread: true, ..Options::default() };
    group.bench_function("mixed-10MB-one-thread", |b| b.iter(|| compile(&source, "bench.dialogue.md", &one_thread)));
    group.finish();
}
