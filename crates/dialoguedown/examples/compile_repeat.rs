//! Compiles a script several times in one process, as the criterion bench does, timing each
//! compile with and without dropping its result: `compile_repeat <script.dialogue.md> [times]`.

use std::time::Instant;

use stagehand_dialoguedown::{compile, Options};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: compile_repeat <script.dialogue.md> [times]");
        return;
    };
    let times: usize = args.next().and_then(|times| times.parse().ok()).unwrap_or(3);
    let source = match std::fs::read_to_string(&path) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("{path}: {error}");
            return;
        }
    };
    let mib = source.len() as f64 / (1024.0 * 1024.0);
    for _ in 0..times {
        let start = Instant::now();
        let compilation = compile(&source, &path, &Options::default());
        let compiled = start.elapsed();
        drop(compilation);
        let dropped = start.elapsed();
        eprintln!(
            "compiled in {compiled:?} ({:.1} MiB/s), with the drop {dropped:?} ({:.1} MiB/s)",
            mib / compiled.as_secs_f64(),
            mib / dropped.as_secs_f64()
        );
    }
}
