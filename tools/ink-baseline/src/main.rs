//! Times bladeink-compiler 2.1 on generated ink beside the DialogueDown compiler on the compile
//! bench's generated script, alternating the two in one process so both see the same machine:
//!
//! ```sh
//! cargo run --release --manifest-path tools/ink-baseline/Cargo.toml -- [MiB] [rounds] [--prose]
//! ```
//!
//! The ink is written to exercise what the DialogueDown script does, construct for construct:
//! a knot per scene, speakers' lines with tags and printed variables, a conditional line, a
//! conditional divert, nested choices with conditions and a sticky choice, a shuffle (ink's
//! random choice), a multi-branch conditional with a nested condition, comments, and a divert
//! to the next scene. With `--prose`, both are plain narration instead: scenes of six long lines
//! by one speaker, the best case for either compiler. Each compile's result (ink JSON, or a
//! playbook) is dropped inside the timing, as criterion's `iter` does.

use std::time::{Duration, Instant};

use stagehand_dialoguedown::{compile, Options};

mod load;

#[path = "../../../crates/dialoguedown/benches/support/script.rs"]
mod script;

/// One ink knot; `{n}` and `{next}` are filled per copy.
const KNOT: &str = r#"=== scene_{n} ===
// A note for the writers.
~ visits = visits + 1
Narrator: The room is quiet, and the clock reads {clock_time}. #mood:tired
It has been a long night. Too long.
Alice: Hello, {player_name}! Look at this map. #excited
Bob: Nice. Very nice.
{has_key: Alice: I have the key.}
{rainy: -> scene_{next}}
* {brave} Open the door.
    Alice: Here goes.
    -> scene_{next}
* Wait a moment. #patient
    Bob: Careful!
    ** Listen.
        Alice: Nothing.
    ** Speak.
        Bob: Hello?
    -- Alice: Let us go.
+ [Leave] -> scene_{next}
- {~A fox runs by.|An owl hoots.|Nothing happens.}
{
- rich:
    Guard: Welcome, my lord.
    {armed: Guard: Leave your blade.}
- poor:
    Guard: Begone.
- else:
    Guard: State your business.
}
-> scene_{next}

"#;

const GLOBALS: &str = "VAR visits = 0\nVAR clock_time = \"midnight\"\nVAR player_name = \"you\"\n\
VAR has_key = false\nVAR rainy = false\nVAR brave = true\nVAR rich = false\nVAR poor = false\n\
VAR armed = false\n-> scene_0\n\n";

/// An ink story of at least `bytes` bytes: knots chained by diverts, then a last one.
pub(crate) fn ink(bytes: usize) -> String {
    script::chained(GLOBALS, KNOT, bytes, |n| format!("=== scene_{n} ===\nAlice: The end.\n-> END\n"))
}

/// One long line of narration.
const PROSE: &str = "Narrator: The room is quiet and the clock reads midnight while the rain keeps falling on \
the old roof of the house. The room is quiet and the clock reads midnight while the rain keeps \
falling on the old roof of the house. The room is quiet and the clock reads midnight.";

/// Prose of at least `bytes` bytes, as ink (one knot) and as a script (a scene per six lines).
fn prose(bytes: usize) -> (String, String) {
    let (mut story, mut script) = (String::from("=== scene_0 ===\n"), String::new());
    let mut n = 0;
    while script.len() < bytes {
        script.push_str(&format!("# Scene {n}\n\n"));
        for _ in 0..6 {
            story.push_str(PROSE);
            story.push('\n');
            script.push_str(PROSE);
            script.push_str("\n\n");
        }
        n += 1;
    }
    story.push_str("-> END\n");
    (story, script)
}

/// The fastest and the median of some timings.
pub(crate) fn summary(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[0], times[times.len() / 2])
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("--load") => return load::main(),
        Some("--write") => return load::write_files(),
        Some("--compile-ink") => return load::compile_ink(),
        Some("--load-file") => return load::load_file(),
        _ => {}
    }
    let prose_only = std::env::args().any(|arg| arg == "--prose");
    let mut args = std::env::args().skip(1).filter(|arg| arg != "--prose");
    let mib: usize = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(10);
    let rounds: usize = args.next().and_then(|arg| arg.parse().ok()).unwrap_or(5).max(1);
    let (story, dialogue) =
        if prose_only { prose(mib * 1024 * 1024) } else { (ink(mib * 1024 * 1024), script::script(mib * 1024 * 1024)) };
    let ink_compiler = bladeink_compiler::Compiler::new();
    if let Err(error) = ink_compiler.compile(&story) {
        eprintln!("the generated ink does not compile: {error:?}");
        std::process::exit(1);
    }
    if compile(&dialogue, "bench.dialogue.md", &Options::default()).playbook.is_none() {
        eprintln!("the generated script does not compile");
        std::process::exit(1);
    }
    let (mut ink_times, mut dialogue_times) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let start = Instant::now();
        drop(ink_compiler.compile(&story));
        ink_times.push(start.elapsed());
        let start = Instant::now();
        drop(compile(&dialogue, "bench.dialogue.md", &Options::default()));
        dialogue_times.push(start.elapsed());
    }
    let show = |what: &str, bytes: usize, times: Vec<Duration>| {
        let (fastest, median) = summary(times);
        let rate = |time: Duration| bytes as f64 / 1e6 / time.as_secs_f64();
        println!(
            "{what:<34} {:>6.2} MB  median {median:>9.1?} ({:>6.1} MB/s)  fastest {fastest:>9.1?} ({:>6.1} MB/s)",
            bytes as f64 / 1e6,
            rate(median),
            rate(fastest),
        );
    };
    show("bladeink-compiler 2.1.0 (ink)", story.len(), ink_times);
    show("stagehand-dialoguedown (script)", dialogue.len(), dialogue_times);
}
