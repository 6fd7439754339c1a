//! Loading and whole-process comparisons with bladeink, for BENCHMARKS.md:
//!
//! ```sh
//! ink-baseline --write DIR [LINES] [MiB]     # the scripts, the ink and its JSON, as files
//! ink-baseline --load [LINES] [ROUNDS]       # bladeink's Story::new beside our reader, alternating
//! ink-baseline --load-file ink|playbook|binary FILE # load one file once (for /usr/bin/time -v)
//! ink-baseline --compile-ink IN OUT          # bladeink-compiler as a command: ink in, JSON out
//! ```
//!
//! The linear story is the same content in both languages: one scene of `LINES` lines said by
//! one speaker, each with its own words.

use std::time::Instant;

use stagehand_dialoguedown::{compile, Options};

fn line(i: usize) -> String {
    format!("Alice: This is line number {i} of the story, said plainly and then left behind.")
}

/// The linear story as ink and as a DialogueDown script.
fn linear(lines: usize) -> (String, String) {
    let (mut ink, mut dialogue) = (String::from("=== start ===\n"), String::from("# Start\n\n"));
    for i in 0..lines {
        ink.push_str(&line(i));
        ink.push('\n');
        dialogue.push_str(&line(i));
        dialogue.push_str("\n\n");
    }
    ink.push_str("-> END\n");
    ink.insert_str(0, "-> start\n");
    (ink, dialogue)
}

fn arg(n: usize) -> Option<String> {
    std::env::args().nth(n)
}

fn number(n: usize, default: usize) -> usize {
    arg(n).and_then(|a| a.parse().ok()).unwrap_or(default)
}

fn ink_json(ink: &str) -> String {
    bladeink_compiler::Compiler::new().compile(ink).unwrap_or_else(|e| {
        eprintln!("the ink does not compile: {e:?}");
        std::process::exit(1)
    })
}

fn playbook(dialogue: &str) -> stagehand_playbook::Playbook {
    compile(dialogue, "linear.dialogue.md", &Options::default()).playbook.unwrap_or_else(|| {
        eprintln!("the script does not compile");
        std::process::exit(1)
    })
}

/// `--write DIR [LINES] [MiB]`.
pub fn write_files() {
    let dir = std::path::PathBuf::from(arg(2).unwrap_or_else(|| ".".into()));
    let lines = number(3, 100_000);
    let mib = arg(4).and_then(|a| a.parse::<f64>().ok()).unwrap_or(12.5);
    let (ink, dialogue) = linear(lines);
    let put = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).expect("writable");
        println!("{name}: {} bytes", text.len());
    };
    put("linear.ink", &ink);
    put("linear.ink.json", &ink_json(&ink));
    put("linear.dialogue.md", &dialogue);
    let book = playbook(&dialogue);
    put("linear.playbook.json", &stagehand_playbook::write_compact(&book));
    let binary = stagehand_playbook::write_binary(&book);
    std::fs::write(dir.join("linear.playbook.bin"), &binary).expect("writable");
    println!("linear.playbook.bin: {} bytes", binary.len());
    let bytes = (mib * 1024.0 * 1024.0) as usize;
    put("mixed.dialogue.md", &crate::script::script(bytes));
    put("mixed.ink", &crate::ink(bytes));
}

/// `--load [LINES] [ROUNDS]`.
pub fn main() {
    let lines = number(2, 100_000);
    let rounds = number(3, 7).max(1);
    let (ink, dialogue) = linear(lines);
    let ink_json = ink_json(&ink);
    let book = playbook(&dialogue);
    let pretty = stagehand_playbook::write(&book);
    let compact = stagehand_playbook::write_compact(&book);
    let binary = stagehand_playbook::write_binary(&book);
    drop(book);
    let (mut ink_times, mut pretty_times, mut compact_times) = (Vec::new(), Vec::new(), Vec::new());
    let mut binary_times = Vec::new();
    for _ in 0..rounds {
        let start = Instant::now();
        drop(bladeink::story::Story::new(&ink_json).expect("the story loads"));
        ink_times.push(start.elapsed());
        let start = Instant::now();
        drop(stagehand_playbook::read(&pretty).expect("the playbook reads"));
        pretty_times.push(start.elapsed());
        let start = Instant::now();
        drop(stagehand_playbook::read(&compact).expect("the playbook reads"));
        compact_times.push(start.elapsed());
        let start = Instant::now();
        drop(stagehand_playbook::read_binary(&binary).expect("the binary playbook reads"));
        binary_times.push(start.elapsed());
    }
    let show = |what: &str, bytes: usize, times: Vec<std::time::Duration>| {
        let (fastest, median) = crate::summary(times);
        println!("{what:<40} {:>6.2} MB  median {median:>9.1?}  fastest {fastest:>9.1?}", bytes as f64 / 1e6);
    };
    println!("{lines} lines, {rounds} rounds, each load dropped inside its timing");
    show("bladeink 2.1.0 Story::new (ink JSON)", ink_json.len(), ink_times);
    show("stagehand_playbook::read (pretty)", pretty.len(), pretty_times);
    show("stagehand_playbook::read (compact)", compact.len(), compact_times);
    show("stagehand_playbook::read_binary", binary.len(), binary_times);
}

/// `--load-file ink|playbook|binary FILE`: one load, for measuring a process's peak memory.
pub fn load_file() {
    let kind = arg(2).unwrap_or_default();
    let bytes = std::fs::read(arg(3).expect("a file")).expect("readable");
    let start = Instant::now();
    match kind.as_str() {
        "binary" => drop(stagehand_playbook::read_binary(&bytes).expect("the binary playbook reads")),
        _ => {
            let text = String::from_utf8(bytes).expect("UTF-8 text");
            let start = Instant::now();
            match kind.as_str() {
                "ink" => drop(bladeink::story::Story::new(&text).expect("the story loads")),
                _ => drop(stagehand_playbook::read(&text).expect("the playbook reads")),
            }
            eprintln!("loaded in {:.1?}", start.elapsed());
            return;
        }
    }
    eprintln!("loaded in {:.1?}", start.elapsed());
}

/// `--compile-ink IN OUT`.
pub fn compile_ink() {
    let ink = std::fs::read_to_string(arg(2).expect("an ink file")).expect("readable");
    std::fs::write(arg(3).expect("an output file"), ink_json(&ink)).expect("writable");
}
