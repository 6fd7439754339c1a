//! Plays N Boss turns on the `turns` bench's generated ring machine, for instruction counts
//! (BENCHMARKS.md, "Agent playbooks"): run it under callgrind with N and with 0 turns and
//! divide the difference by N. `boss_turns_mimalloc` is the same on the allocator the
//! `stagehand` command ships with.
//!
//! ```sh
//! cargo build --release -p stagehand-agents --example boss_turns
//! valgrind --tool=callgrind target/release/examples/boss_turns 498 200
//! ```

#[path = "../benches/ring/mod.rs"]
#[allow(dead_code)] // The bench uses the rest of the module.
mod ring;

fn main() {
    ring::play_from_args();
}
