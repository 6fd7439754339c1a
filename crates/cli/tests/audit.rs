//! What an audit of the command line found, each through the real binary: a demanding user's
//! edge cases (a byte-order mark, invalid UTF-8, an output that is the input, a document of the
//! wrong kind) where one command disagreed with another or with the docs.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn stagehand_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(args)
        .current_dir(dir)
        .env("XDG_STATE_HOME", dir.join("state"))
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Compiles a one-line script to `NAME.json` in `dir` and returns the playbook's bytes.
fn playbook(dir: &Path, name: &str) -> Vec<u8> {
    std::fs::write(dir.join("hello.dialogue.md"), "Mira: Hello XX.\n").expect("written");
    let out = dir.join(name).to_string_lossy().into_owned();
    let compiled = stagehand_in(dir, &["compile", "hello.dialogue.md", "-o", &out]);
    assert!(compiled.status.success(), "{}", text(&compiled.stderr));
    std::fs::read(dir.join(name)).expect("the playbook")
}

#[test]
fn check_reads_a_playbook_as_play_reads_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let compiled = playbook(dir.path(), "hello.json");
    // A byte-order mark before the JSON: play takes it, so check must too.
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(&compiled);
    std::fs::write(dir.path().join("bom.json"), &bom).expect("written");
    let played = stagehand_in(dir.path(), &["play", "bom.json"]);
    assert!(played.status.success(), "{}", text(&played.stderr));
    let checked = stagehand_in(dir.path(), &["check", "bom.json"]);
    assert!(checked.status.success(), "{}{}", text(&checked.stdout), text(&checked.stderr));
    // Bytes that are not UTF-8 inside a string: play refuses the file, so check must not pass it.
    let broken: Vec<u8> =
        text(&compiled).replace("XX", "\u{1}\u{2}").bytes().map(|b| if b < 3 { 0xff } else { b }).collect();
    std::fs::write(dir.path().join("broken.json"), &broken).expect("written");
    let played = stagehand_in(dir.path(), &["play", "broken.json"]);
    assert_eq!(played.status.code(), Some(1), "{}", text(&played.stderr));
    let checked = stagehand_in(dir.path(), &["check", "broken.json"]);
    let said = text(&checked.stdout);
    assert_eq!(checked.status.code(), Some(1), "{said}");
    assert!(said.contains("not UTF-8"), "{said}");
}

#[test]
fn check_refuses_an_agent_machine_that_run_cannot_read() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut machine = std::fs::read(root().join("examples/agents/write-review-revise.toml")).expect("the example");
    machine.extend_from_slice(b"\n# \xff\n");
    std::fs::write(dir.path().join("broken.toml"), &machine).expect("written");
    let ran = stagehand_in(dir.path(), &["run", "broken.toml", "a task"]);
    assert_eq!(ran.status.code(), Some(1), "{}", text(&ran.stderr));
    assert!(text(&ran.stderr).contains("not UTF-8"), "{}", text(&ran.stderr));
    let checked = stagehand_in(dir.path(), &["check", "broken.toml"]);
    let said = text(&checked.stdout);
    assert_eq!(checked.status.code(), Some(1), "{said}");
    assert!(said.contains("not UTF-8"), "{said}");
}

#[test]
fn compile_never_writes_its_playbook_over_the_script() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let script = "Mira: Hello.\n";
    std::fs::write(dir.path().join("hello.dialogue.md"), script).expect("written");
    for out in ["hello.dialogue.md", "./hello.dialogue.md"] {
        let compiled = stagehand_in(dir.path(), &["compile", "hello.dialogue.md", "-o", out]);
        assert_eq!(compiled.status.code(), Some(1), "{}", text(&compiled.stderr));
        assert!(text(&compiled.stderr).contains("would be written over the script"), "{}", text(&compiled.stderr));
        let kept = std::fs::read_to_string(dir.path().join("hello.dialogue.md")).expect("the script");
        assert_eq!(kept, script, "-o {out} wrote over the script");
    }
}

#[test]
fn play_sends_an_agent_machine_to_run_rather_than_sticking() {
    let played = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(["play", "examples/agents/write-review-revise.toml"])
        .current_dir(root())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the binary runs");
    let said = text(&played.stderr);
    assert_eq!(played.status.code(), Some(1), "{said}");
    assert!(said.contains("is an agent machine") && said.contains("stagehand run"), "{said}");
    assert!(!said.contains("stuck") && text(&played.stdout).is_empty(), "{said}{}", text(&played.stdout));
}

#[test]
fn a_parked_run_shows_a_person_its_lines_whole_and_the_worlds_own_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for file in ["club-fair.dialogue.md", "club-fair.world.lua"] {
        std::fs::copy(root().join("examples").join(file), dir.path().join(file)).expect("copied");
    }
    // The chess sign-up fails once in the example's world, with its own words.
    let ran = stagehand_in(dir.path(), &["run", "club-fair.dialogue.md", "choose:1"]);
    let shown = text(&ran.stdout);
    assert_eq!(ran.status.code(), Some(3), "{shown}{}", text(&ran.stderr));
    // The option's line opens with a command: its words are one line, as `play` shows them.
    assert!(shown.contains("Join the chess club.\nMira hands you a pawn, solemnly.\n"), "{shown}");
    assert!(!shown.lines().any(|line| line.is_empty() || line.starts_with(' ') && !line.starts_with("  ")), "{shown}");
    assert!(shown.contains("a gust of wind blows the chess sign-up sheet away; try again"), "{shown}");
}

#[test]
fn serve_says_at_once_why_its_database_cannot_be_reached() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // Nothing listens on port 1: the server must say so, not wait for a pool to time out.
    let began = std::time::Instant::now();
    let url = "postgres://postgres@127.0.0.1:1/stagehand";
    let served = stagehand_in(dir.path(), &["serve", "--listen", "127.0.0.1:0", "--database", url]);
    let said = text(&served.stderr);
    assert_eq!(served.status.code(), Some(2), "{said}");
    assert!(began.elapsed() < std::time::Duration::from_secs(10), "took {:?}: {said}", began.elapsed());
    assert!(said.to_lowercase().contains("refused") && said.contains("127.0.0.1:1"), "{said}");
    // A SQLite file that cannot be opened is named.
    let file = dir.path().join("missing-folder/stagehand.db");
    let url = format!("sqlite:{}", file.display());
    let served = stagehand_in(dir.path(), &["serve", "--listen", "127.0.0.1:0", "--database", &url]);
    let said = text(&served.stderr);
    assert_eq!(served.status.code(), Some(2), "{said}");
    assert!(said.contains(&file.display().to_string()), "{said}");
}

#[test]
fn resume_last_names_a_parked_run_it_cannot_read() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sessions = dir.path().join("state/stagehand/sessions");
    std::fs::create_dir_all(&sessions).expect("made");
    std::fs::write(sessions.join("run-1-2.json"), "not a record").expect("written");
    let resumed = stagehand_in(dir.path(), &["run", "resume", "--last"]);
    let said = text(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(1), "{said}");
    // Not "no run is parked": there is one, and it cannot be read.
    assert!(said.contains("run-1-2.json") && said.contains("cannot be read"), "{said}");
}

#[test]
fn check_as_json_reports_a_file_it_cannot_read() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("utf16.dialogue.md"), b"\xff\xfeM\0i\0").expect("written");
    let checked =
        stagehand_in(dir.path(), &["check", "--message-format", "json", "missing.dialogue.md", "utf16.dialogue.md"]);
    assert_eq!(checked.status.code(), Some(1));
    // Exit 1 with `[]` told an editor nothing: each file that cannot be read is an error in the array.
    let found: serde_json::Value = serde_json::from_slice(&checked.stdout).expect("one JSON array");
    let files: Vec<&str> =
        found.as_array().expect("an array").iter().map(|f| f["file"].as_str().unwrap_or("")).collect();
    assert_eq!(files, ["missing.dialogue.md", "utf16.dialogue.md"], "{found}");
    assert!(found.as_array().unwrap().iter().all(|f| f["severity"] == "error"), "{found}");
}

#[test]
fn serve_documents_leaves_worlds_and_configurations_alone() {
    use std::io::{BufRead, Read};
    let dir = tempfile::tempdir().expect("a temporary directory");
    let stories = dir.path().join("stories");
    std::fs::create_dir(&stories).expect("made");
    for file in ["club-fair.dialogue.md", "club-fair.world.lua", "the-crossing.json"] {
        std::fs::copy(root().join("examples").join(file), stories.join(file)).expect("copied");
    }
    // What sits beside a story and is not one: a world of facts, the compiler's configuration.
    std::fs::write(stories.join("the-crossing.world.json"), r#"{"You": {"HasToken": true}}"#).expect("written");
    std::fs::write(stories.join("dialogue.toml"), "[speakers]\n").expect("written");
    let database = format!("sqlite:{}", dir.path().join("s.db").display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(["serve", "--listen", "127.0.0.1:0", "--database", &database, "--documents", "stories"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut listening = String::new();
    std::io::BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut listening).expect("a line");
    let _ = child.kill();
    let _ = child.wait();
    let mut said = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut said).expect("stderr");
    assert!(listening.contains("listening on"), "{listening}{said}");
    // The stories load; the files beside them are not stories, and are not called broken ones.
    assert!(!said.contains("skipped"), "{said}");
}

#[test]
fn each_commands_help_names_what_the_readme_says_it_does() {
    let help = |command: &str| text(&stagehand_in(&root(), &[command, "--help"]).stdout);
    // README: play knows :save!, :skip and :start; check and graph take agent machines too.
    let play = help("play");
    for command in [":save! FILE", ":skip", ":start", ":quit"] {
        assert!(play.contains(command), "play --help lacks {command}:\n{play}");
    }
    for command in ["check", "graph"] {
        let said = help(command);
        assert!(said.contains("agent machine"), "{command} --help:\n{said}");
    }
}
