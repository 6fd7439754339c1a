//! What `stagehand check`'s graph lints hold beside a big script's playbook, counted by dhat's
//! heap profiler (bytes, never time). The playbook and its places are the check's own cost;
//! the lints add a few flat arrays of a node's worth of bytes each, and read what each node
//! asks one node at a time, never a whole `PlayContext` or a list per node (issue 11, item 11).

use stagehand_dialoguedown::{compile, line_columns, Options};
use stagehand_documents::lint;

#[path = "../../dialoguedown/benches/support/script.rs"]
#[allow(dead_code)]
mod script;

#[global_allocator]
static HEAP: dhat::Alloc = dhat::Alloc;

#[test]
fn the_graph_lints_hold_a_few_bytes_a_node() {
    // About 1 MiB of every construct: tens of thousands of nodes.
    let source = script::script(1 << 20);
    let compilation = compile(&source, "memory.dialogue.md", &Options::default());
    let playbook = compilation.playbook.expect("the generated script compiles");
    let places = line_columns(&source, &compilation.node_offsets);
    let nodes = playbook.nodes.len();

    let profiler = dhat::Profiler::builder().testing().build();
    let before = dhat::HeapStats::get().curr_bytes;
    let lints = lint(&playbook, &places);
    let held = dhat::HeapStats::get().max_bytes - before;
    drop(profiler);

    assert!(lints.is_empty(), "the generated script is clean: {:?}", lints.first());
    // 17 bytes a node now (reach, predecessors and the turnless subgraph as flat arrays of
    // `u32`, Tarjan's marks); a list of predecessors and of onward nodes per node and a whole
    // play context held 114.
    let bound = 32 * nodes;
    eprintln!("linting {nodes} nodes held {held} bytes at its peak ({:.1} a node)", held as f64 / nodes as f64);
    assert!(held <= bound, "linting {nodes} nodes held {held} bytes at its peak, over the {bound} allowed");
}
