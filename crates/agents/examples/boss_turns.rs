//! Plays N Boss turns on the `turns` bench's generated ring machine, for instruction counts
//! (BENCHMARKS.md, "Agent playbooks"): run it under callgrind with N and with 0 and divide
//! the difference by N.
//!
//! ```sh
//! cargo build --release -p stagehand-agents --example boss_turns
//! valgrind --tool=callgrind target/release/examples/boss_turns 498 1000
//! ```

#[path = "../benches/ring/mod.rs"]
#[allow(dead_code)] // The bench uses the rest of the module.
mod ring;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>());
    let (Some(Ok(ring_size)), Some(Ok(turns))) = (args.next(), args.next()) else {
        eprintln!("usage: boss_turns RING TURNS (RING 498 is the 1,000-state machine)");
        std::process::exit(2);
    };
    let machine = ring::machine(ring_size);
    let mut runtime = ring::runtime(&machine);
    for _ in 0..turns {
        ring::turn(&mut runtime);
    }
    println!("{turns} turns; at {:?}", runtime.state().state_id);
}
