//! Compiles a script given on the command line and prints its playbook and diagnostics.

use stagehand_dialoguedown::{compile, render_human, Options};

fn main() {
    let quiet = std::env::args().any(|arg| arg == "--quiet");
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ddown <script.dialogue.md>");
        return;
    };
    let source = match std::fs::read_to_string(&path) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("{path}: {error}");
            return;
        }
    };
    let start = std::time::Instant::now();
    let compilation = compile(&source, &path, &Options::default());
    let compiled = start.elapsed();
    eprint!("{}", render_human(&compilation.diagnostics, &source, &path));
    eprintln!("compiled in {compiled:?}, rendered in {:?}", start.elapsed() - compiled);
    if quiet {
        return;
    }
    if let Some(playbook) = compilation.playbook {
        let json = stagehand_playbook::write(&playbook);
        if let Err(error) = stagehand_playbook::read(&json) {
            eprintln!("reader refuses: {error}");
        }
        println!("{json}");
    }
}
