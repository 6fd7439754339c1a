//! What compiling a big script, and rendering its diagnostics, cost in memory, counted by dhat's heap profiler (bytes, never
//! time). One test, because a process holds one profiler at a time (two, one after the other).

use stagehand_dialoguedown::{compile, write_human, Options};

#[path = "../benches/support/script.rs"]
#[allow(dead_code)]
mod script;

#[global_allocator]
static HEAP: dhat::Alloc = dhat::Alloc;

#[test]
fn compiling_holds_a_small_multiple_of_the_script() {
    let profiler = dhat::Profiler::builder().testing().build();
    // About 4.8 MiB: a little over 2^17 nodes, where a table grown by doubling is at its
    // emptiest (almost half of it reserved and unused).
    let source = script::script(5_000_000);
    let before = dhat::HeapStats::get().curr_bytes;
    let compilation = compile(&source, "memory.dialogue.md", &Options::default());
    let peak = dhat::HeapStats::get().max_bytes - before;
    let kept = dhat::HeapStats::get().curr_bytes - before;
    let playbook = compilation.playbook.expect("the generated script compiles");
    let nodes = playbook.nodes.len();
    eprintln!(
        "compiling {} bytes ({nodes} nodes) held {peak} bytes at its peak ({:.2}x) and kept {kept} ({:.2}x)",
        source.len(),
        peak as f64 / source.len() as f64,
        kept as f64 / source.len() as f64
    );
    // The compiler holds the playbook it builds and a few pieces of the script; never a node
    // table twice the size it needs, nor two copies of one. What it keeps is the playbook (nodes
    // of 72 bytes, fragments of 32, speech boxed at its exact length; PB7) and the diagnostics:
    // 5.35× this script (6.80× with nodes of 104 bytes and fragments of 40, 9.1× with 128 and
    // 56); its peak 6.34× (7.98× before PB7, 8.72× with eight pieces parsed ahead, 11.0×
    // before that). The peak's bound leaves room for the second thread parsing ahead, whose
    // pieces in flight vary from run to run; what is kept does not vary.
    let bound = 7 * source.len();
    assert!(
        peak <= bound,
        "compiling {} bytes ({nodes} nodes) held {peak} bytes at its peak ({:.2}× the script; {kept} kept), over the {bound} allowed",
        source.len(),
        peak as f64 / source.len() as f64
    );
    let bound = 23 * source.len() / 4;
    assert!(
        kept <= bound,
        "compiling {} bytes ({nodes} nodes) kept {kept} bytes ({:.2}× the script), over the {bound} allowed",
        source.len(),
        kept as f64 / source.len() as f64
    );

    drop(playbook);

    // Rendering its diagnostics for people, written out as they are rendered, holds the line
    // index ariadne quotes from (32 bytes a line, grown by doubling) and one report at a time,
    // never the whole rendering.
    let lines = source.lines().count();
    let diagnostics = &compilation.diagnostics;
    let mut written = Counted(0);
    // A fresh profiler, so the compile's peak above does not hide the rendering's.
    drop(profiler);
    let profiler = dhat::Profiler::builder().testing().build();
    write_human(diagnostics, &source, "memory.dialogue.md", false, &mut written).expect("counting cannot fail");
    let held = dhat::HeapStats::get().max_bytes;
    drop(profiler);
    let bound = 32 * lines.next_power_of_two() + (256 << 10);
    assert!(written.0 > 1 << 20, "{} diagnostics rendered to only {} bytes", diagnostics.len(), written.0);
    assert!(held <= bound, "rendering {} bytes of diagnostics held {held} bytes, over the {bound} allowed", written.0);
}

/// A writer that only counts what it is given.
struct Counted(usize);

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
