//! Compiles a script several times in one process, as the criterion bench does, timing each
//! compile with and without dropping its result:
//! `compile_repeat <script.dialogue.md | --generated MiB> [times]`. With `--generated`, the
//! script is the compile bench's own generated one, of about that many MiB.

use std::time::Instant;

use stagehand_dialoguedown::{compile, Options};

#[path = "../benches/support/script.rs"]
mod script;

fn main() {
    let mut args = std::env::args().skip(1);
    let (name, source) = match args.next().as_deref() {
        Some("--generated") => {
            let mib: usize = args.next().and_then(|mib| mib.parse().ok()).unwrap_or(10);
            ("generated.dialogue.md".to_owned(), script::script(mib * 1024 * 1024))
        }
        Some(path) => match std::fs::read_to_string(path) {
            Ok(source) => (path.to_owned(), source),
            Err(error) => {
                eprintln!("{path}: {error}");
                return;
            }
        },
        None => {
            eprintln!("usage: compile_repeat <script.dialogue.md | --generated MiB> [times]");
            return;
        }
    };
    let times: usize = args.next().and_then(|times| times.parse().ok()).unwrap_or(3);
    let mib = source.len() as f64 / (1024.0 * 1024.0);
    for _ in 0..times {
        let start = Instant::now();
        let compilation = compile(&source, &name, &Options::default());
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
