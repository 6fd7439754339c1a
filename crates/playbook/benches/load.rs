#![allow(missing_docs)] // criterion_group! generates an undocumented function.
//! Reading, writing and fingerprinting a playbook of 100,000 lines (one speaker, each line its
//! own words, every tenth conditional with a divert), as `stagehand play` loads one and
//! `stagehand compile` writes one, in JSON and in the binary form.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use stagehand_playbook::{
    fingerprint, read, read_binary, smallvec, write, write_binary, write_compact, write_to, Condition, Edge, Fragment,
    Node, Playbook, Speaker,
};

fn playbook(lines: u32) -> Playbook {
    let mut playbook = Playbook::new("load.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    for i in 0..lines {
        let condition = (i % 10 == 0).then(|| Condition::key("asked"));
        let mut out = smallvec![Edge::Succession { target: i + 1 }];
        if condition.is_some() {
            out.insert(0, Edge::Divert { target: i + 1, label: Box::default(), condition: Some(Condition::key("k")) });
        }
        let words = format!("This is line number {i} of the story, said plainly and then left behind.");
        playbook.nodes.push(Node::Line { speaker: 0, speech: vec![Fragment::text(words)].into(), condition, out });
    }
    playbook.nodes.push(Node::End);
    playbook
}

fn load(c: &mut Criterion) {
    let book = playbook(100_000);
    let compact = write_compact(&book);
    let pretty = write(&book);
    let mut group = c.benchmark_group("playbook-100k-lines");
    group.sample_size(20);
    group.throughput(Throughput::Bytes(compact.len() as u64));
    group.bench_function("read compact (and drop)", |b| b.iter(|| read(&compact).expect("reads")));
    group.bench_function("write compact to a sink", |b| b.iter(|| write_to(&book, std::io::sink(), false)));
    group.bench_function("fingerprint", |b| b.iter(|| fingerprint(&book)));
    let binary = write_binary(&book);
    group.throughput(Throughput::Bytes(binary.len() as u64));
    group.bench_function("read binary (and drop)", |b| b.iter(|| read_binary(&binary).expect("reads")));
    group.bench_function("write binary", |b| b.iter(|| write_binary(&book)));
    group.throughput(Throughput::Bytes(pretty.len() as u64));
    group.bench_function("read pretty (and drop)", |b| b.iter(|| read(&pretty).expect("reads")));
    group.bench_function("write pretty to a string", |b| {
        b.iter_batched(|| (), |()| write(&book), BatchSize::PerIteration)
    });
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
