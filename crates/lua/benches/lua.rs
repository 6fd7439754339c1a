//! Condition evaluations per second for a typical compiled ChatMapper condition.

use criterion::{criterion_main, Criterion, Throughput};
use stagehand_lua::{ChunkKind, Key, Limits, Sandbox, ScriptHost, Value};

fn condition(c: &mut Criterion) {
    let mut host = Sandbox::new(Limits::default(), 1).expect("sandbox");
    host.set(&[Key::from("Variable"), Key::from("Gold")], Value::Number(12.0)).expect("set");
    host.set(&[Key::from("Actor"), Key::from("Player"), Key::from("Met")], Value::Boolean(true)).expect("set");
    let chunk = host
        .compile("bench", r#"Variable["Gold"] >= 10 and Actor["Player"]["Met"] == true"#, ChunkKind::Condition)
        .expect("compiles");
    assert!(host.evaluate(chunk).expect("evaluates"));

    let mut group = c.benchmark_group("lua");
    group.throughput(Throughput::Elements(1));
    group.bench_function("evaluate_condition", |b| b.iter(|| host.evaluate(chunk).expect("evaluates")));
    group.finish();
}

/// The benchmark group, in a module so the function `criterion_group!` generates (which carries no doc
/// comment) can be exempted from `missing_docs` alone.
mod group {
    #![allow(missing_docs)]
    criterion::criterion_group!(benches, super::condition);
}

criterion_main!(group::benches);
