//! Writes a generated ChatMapper export to standard output, for BENCHMARKS.md:
//! `cargo run --release -p stagehand-chatmapper --example big-project -- 100000 json 100 > big.json`
//! (entries, `json` or `xml`, entries per conversation).

#[path = "../tests/common/big.rs"]
mod big;

fn main() {
    let mut args = std::env::args().skip(1);
    let entries = args.next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(100_000);
    let format = args.next();
    let per_conversation = args.next().and_then(|n| n.parse::<usize>().ok()).unwrap_or(100);
    let text = match format.as_deref() {
        Some("xml") => big::xml(entries, per_conversation),
        _ => big::json(entries, per_conversation),
    };
    print!("{text}");
}
