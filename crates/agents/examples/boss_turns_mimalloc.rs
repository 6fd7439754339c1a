//! `boss_turns` on mimalloc, the allocator the `stagehand` command ships with: a Boss turn
//! allocates a few hundred small values (the trace payloads it emits), so the allocator is a
//! large share of its cost.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../benches/ring/mod.rs"]
#[allow(dead_code)] // The bench uses the rest of the module.
mod ring;

fn main() {
    ring::play_from_args();
}
