//! Compiles a script several times in one process, as the criterion bench does, and prints the
//! fastest and the median time with and without dropping the result:
//! `compile_repeat <script.dialogue.md | --generated MiB> [times] [--one-thread]`. With
//! `--generated`, the script is the compile bench's own generated one, of about that many MiB
//! (a fraction allowed); `compile_repeat --generated MiB --write FILE` writes it to a file
//! instead, for measuring the `stagehand` binary on it.
//! On a machine whose timings wander, the fastest of many runs is the steadiest figure.

use std::time::{Duration, Instant};

use stagehand_dialoguedown::{compile, Options};

#[path = "../benches/support/script.rs"]
mod script;

fn main() {
    let one_thread = std::env::args().any(|arg| arg == "--one-thread");
    let mut args = std::env::args().skip(1).filter(|arg| arg != "--one-thread");
    let (name, source) = match args.next().as_deref() {
        Some("--generated") => {
            let mib: f64 = args.next().and_then(|mib| mib.parse().ok()).unwrap_or(10.0);
            let source = script::script((mib * 1024.0 * 1024.0) as usize);
            if args.next().as_deref() == Some("--write") {
                let path = args.next().unwrap_or_else(|| "generated.dialogue.md".to_owned());
                if let Err(error) = std::fs::write(&path, &source) {
                    eprintln!("{path}: {error}");
                }
                return;
            }
            ("generated.dialogue.md".to_owned(), source)
        }
        Some(path) => match std::fs::read_to_string(path) {
            Ok(source) => (path.to_owned(), source),
            Err(error) => {
                eprintln!("{path}: {error}");
                return;
            }
        },
        None => {
            eprintln!("usage: compile_repeat <script.dialogue.md | --generated MiB> [times] [--one-thread]");
            return;
        }
    };
    let times: usize = args.next().and_then(|times| times.parse().ok()).unwrap_or(5).max(1);
    let options = Options { one_thread, ..Options::default() };
    let mut compiled = Vec::with_capacity(times);
    let mut dropped = Vec::with_capacity(times);
    for _ in 0..times {
        let start = Instant::now();
        let compilation = compile(&source, &name, &options);
        compiled.push(start.elapsed());
        drop(compilation);
        dropped.push(start.elapsed());
    }
    let mib = source.len() as f64 / (1024.0 * 1024.0);
    let show = |what: &str, mut times: Vec<Duration>| {
        times.sort();
        let (fastest, median) = (times[0], times[times.len() / 2]);
        let rate = |time: Duration| mib / time.as_secs_f64();
        println!(
            "{what}: fastest {fastest:.1?} ({:.1} MiB/s), median {median:.1?} ({:.1} MiB/s)",
            rate(fastest),
            rate(median)
        );
    };
    show("compile", compiled);
    show("compile and drop", dropped);
}
