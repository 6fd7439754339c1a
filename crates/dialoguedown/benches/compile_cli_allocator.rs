//! The compile bench on mimalloc, the allocator the `stagehand` command ships with: what
//! `stagehand compile` gets.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{criterion_group, criterion_main, Criterion};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "support/bench.rs"]
mod support;

fn bench(c: &mut Criterion) {
    support::compile_group(c, "compile-cli-allocator");
}

criterion_group!(benches, bench);
criterion_main!(benches);
