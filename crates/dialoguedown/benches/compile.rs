//! Compiling a generated ~10 MB script that mixes every construct of the language, on the
//! system allocator (what a host embedding the library gets by default).
#![allow(missing_docs)] // criterion's macros generate undocumented items

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "support/bench.rs"]
mod support;

fn bench(c: &mut Criterion) {
    support::compile_group(c, "compile");
}

criterion_group!(benches, bench);
criterion_main!(benches);
