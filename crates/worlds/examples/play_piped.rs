//! A piped player on the host session, for measuring the library's share of `stagehand play
//! FILE < /dev/null` (issue 12 item 9): compiles a script, prepares the playbook once, and drives
//! one `host::Session` to the end with no world, printing each line said as `Speaker: words`.
//! At a menu it takes the first option (as a piped person answering `1` would).
//!
//! ```sh
//! cargo build --release -p stagehand-worlds --example play_piped
//! time target/release/examples/play_piped linear.dialogue.md > /dev/null
//! ```

use std::io::Write as _;

use stagehand_dialoguedown::{compile, Options};
use stagehand_runner::{PreparedPlaybook, RunnerEngine};
use stagehand_session::host::{Pending, Session};
use stagehand_worlds::{drive, NoWorld, Stop};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: play_piped FILE.dialogue.md");
        std::process::exit(1);
    };
    let script = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let playbook = compile(&script, &path, &Options::default()).playbook.unwrap_or_else(|| {
        eprintln!("{path} does not compile");
        std::process::exit(1)
    });
    drop(script);
    let prepared = PreparedPlaybook::new(&playbook);
    let mut session = Session::new(RunnerEngine::with(&prepared, 0), "piped", 0).expect("a session");
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let show = |reported: &[stagehand_protocol::Reported], out: &mut dyn std::io::Write| {
        for r in reported.iter().filter(|r| r.kind == "said" || r.kind == "continued") {
            let text = r.text.as_deref().unwrap_or("");
            let _ = match &r.speaker {
                Some(speaker) => writeln!(out, "{speaker}: {text}"),
                None => writeln!(out, "{text}"),
            };
        }
    };
    show(&session.take_opening(), &mut out);
    let mut turn = 0u64;
    loop {
        session.discard_trace();
        let driven = drive(&mut session, &mut NoWorld, 0);
        show(&driven.reported, &mut out);
        match driven.stop {
            Stop::Ended => break,
            Stop::Failed(why) => {
                let _ = out.flush();
                eprintln!("the run cannot go on: {why}");
                std::process::exit(2);
            }
            Stop::Person => {
                turn += 1;
                let action = match session.pending() {
                    Pending::Menu { .. } => session.describe().actions[0].id.clone(),
                    Pending::Line => continue,
                    Pending::Ended => break,
                    _ => {
                        let _ = out.flush();
                        eprintln!("a person must act: {}", session.describe().description);
                        std::process::exit(3);
                    }
                };
                let receipt = session.apply(&action, &format!("person:{turn}"), 0);
                if let stagehand_protocol::Receipt::Executed { events, .. } = &receipt {
                    show(events, &mut out);
                }
            }
        }
    }
    let _ = out.flush();
}
