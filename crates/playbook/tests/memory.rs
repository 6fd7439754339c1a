//! What writing, fingerprinting and reading a playbook cost in memory, counted by dhat's heap
//! profiler (bytes, never time). One test, because a process holds one profiler at a time.

use stagehand_playbook::{
    fingerprint, smallvec, write, write_compact, write_to, Condition, Edge, Fragment, Node, Playbook, Speaker,
};

#[global_allocator]
static HEAP: dhat::Alloc = dhat::Alloc;

/// A playbook of `lines` lines, each with words long enough to live on the heap, every tenth
/// conditional; built at its exact size, so building leaves no peak of its own behind.
fn playbook(lines: u32) -> Playbook {
    let mut playbook = Playbook::new("memory.dialogue.md");
    playbook.speakers.push(Speaker::named("Alice"));
    playbook.nodes = Vec::with_capacity(stagehand_playbook::position(lines) + 1);
    for i in 0..lines {
        let condition = (i % 10 == 0).then(|| Condition::key("asked"));
        let mut out = smallvec![Edge::Succession { target: i + 1 }];
        if condition.is_some() {
            out.insert(0, Edge::Divert { target: i + 1, label: Box::default(), condition: Some(Condition::key("k")) });
        }
        playbook.nodes.push(Node::Line {
            speaker: 0,
            speech: vec![Fragment::text(format!("This is line number {i} of the story, said plainly."))].into(),
            condition,
            out,
        });
    }
    playbook.nodes.push(Node::End);
    playbook
}

/// The most the heap held above `base` bytes while `run` ran, and what `run` returned.
fn peak_above<T>(run: impl FnOnce() -> T) -> (usize, T) {
    let before = dhat::HeapStats::get();
    let result = run();
    let after = dhat::HeapStats::get();
    // `max_bytes` is the peak since the profiler started; an earlier, higher peak hides this
    // one, so the figure is an upper bound of what `run` held above what was live before.
    (after.max_bytes.saturating_sub(before.curr_bytes), result)
}

#[test]
fn writing_fingerprinting_and_reading_hold_no_tree_of_the_document() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let book = playbook(20_000);
    // Smallest peak first, so an earlier, higher one cannot hide it.
    let (fingerprint_held, _) = peak_above(|| fingerprint(&book));
    let (sink_held, _) = peak_above(|| write_to(&book, std::io::sink(), true));
    let compact_len = write_compact(&book).len();
    assert!(
        fingerprint_held < 64 * 1024,
        "fingerprinting held {fingerprint_held} bytes for a {compact_len}-byte canonical form"
    );
    assert!(sink_held < 64 * 1024, "writing to a sink held {sink_held} bytes");

    // A string of the document is all `write` holds beyond the playbook (growing by doubling).
    let (held, text) = peak_above(|| write(&book));
    assert!(held <= 3 * text.len(), "writing a {}-byte string held {held} bytes", text.len());
    drop(text);

    // Reading holds the playbook it builds and little else: no tree of the document.
    let text = write_compact(&book);
    drop(book);
    let live = dhat::HeapStats::get().curr_bytes;
    let (held, read) = peak_above(|| stagehand_playbook::read(&text));
    let kept = dhat::HeapStats::get().curr_bytes - live;
    assert!(read.is_ok());
    eprintln!("reading {} bytes held {held} bytes at most and kept {kept}", text.len());
    // The playbook it builds is the most of it (its node table grows by doubling, then gives the
    // slack back); the tree reader held sixteen times the text.
    assert!(
        held <= 3 * text.len(),
        "reading a {}-byte document held {held} bytes for a {kept}-byte playbook",
        text.len()
    );
    // What it keeps is the playbook, at its exact size: 0.90× its canonical text here (nodes of
    // 72 bytes, a line's one fragment of 32 boxed at its length, the words on the heap; PB7);
    // 1.12× with nodes of 104 bytes and fragments of 40, about 1.35× with nodes of 128 bytes
    // and speech in a `Vec` of 56-byte fragments.
    assert!(
        kept <= text.len(),
        "reading a {}-byte document kept a {kept}-byte playbook ({:.2}× the text)",
        text.len(),
        kept as f64 / text.len() as f64
    );

    // The binary form builds the same playbook, with no more slack than the JSON reader leaves,
    // and holds about what that reader holds (most of it the playbook, and what the checkers
    // hold while they run, which both readers share).
    let playbook = read.expect("read");
    let bytes = stagehand_playbook::write_binary(&playbook);
    drop(playbook);
    drop(text);
    let live = dhat::HeapStats::get().curr_bytes;
    let (binary_held, read) = peak_above(|| stagehand_playbook::read_binary(&bytes));
    let binary_kept = dhat::HeapStats::get().curr_bytes - live;
    assert!(read.is_ok());
    eprintln!("reading {} binary bytes held {binary_held} bytes at most and kept {binary_kept}", bytes.len());
    assert!(binary_kept <= kept, "the binary read kept {binary_kept} bytes, the JSON read {kept}");
    assert!(binary_held <= held + held / 4, "the binary read held {binary_held} bytes, the JSON read {held}");
}
