//! `stagehand` in a pipeline: a reader that goes away (`| head -1`), standard input held open
//! after the story ends, input that is not valid where it is read, and files too large to read.

mod common;

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::root;

/// Only a safety net against a hang, never a measure of speed: a player that waits for input it
/// will never get would otherwise hold the test forever.
const PATIENCE: Duration = Duration::from_secs(120);

fn stagehand(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagehand"));
    command.args(args).current_dir(dir).env_remove("NO_COLOR");
    command
}

/// Waits for `child` to stop; kills it and fails the test if it has not within [`PATIENCE`].
fn wait(child: &mut Child, what: &str) -> ExitStatus {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(status) = child.try_wait().expect("the child's status") {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what} was still running after {PATIENCE:?}: it waits for input it will not get");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Exit 0, or killed by SIGPIPE (a shell's 141): the ways a command cut short by its reader ends.
fn quiet(status: ExitStatus) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if status.signal() == Some(13) {
            return true;
        }
    }
    status.code() == Some(0)
}

/// Runs `args` with standard output closed before the command writes to it, as `| head -1` does
/// once it has its line, and `input` written with standard input held open; returns the exit
/// status and what went to standard error.
fn cut_short(args: &[&str], input: &str) -> (ExitStatus, String) {
    let mut child = stagehand(&root(), args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(input.as_bytes());
    let _ = stdin.flush();
    let mut stderr = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut errors = String::new();
        let _ = stderr.read_to_string(&mut errors);
        errors
    });
    let status = wait(&mut child, &args.join(" "));
    drop(stdin);
    (status, reader.join().expect("stderr"))
}

#[test]
fn every_command_piped_into_head_exits_quietly() {
    let commands: [&[&str]; 5] = [
        &["compile", "examples/club-fair.dialogue.md"],
        &["check", "examples/club-fair.dialogue.md", "examples/the-crossing.json", "examples/the-lighthouse.xml"],
        &["graph", "examples/club-fair.dialogue.md"],
        &["conform", "conformance"],
        &["play", "examples/the-crossing.json"],
    ];
    for args in commands {
        let (status, errors) = cut_short(args, "1\n");
        assert!(quiet(status), "stagehand {}: {status}\n{errors}", args.join(" "));
        assert!(!errors.contains("panicked"), "stagehand {}:\n{errors}", args.join(" "));
    }
}

#[test]
fn with_standard_error_gone_too_nothing_panics() {
    // As `stagehand … 2>&1 | head -1` once head has gone: every write fails, none may panic.
    let commands: [&[&str]; 3] = [
        &["play", "examples/club-fair.dialogue.md"],
        &["compile", "examples/the-crossing.json"],
        &["check", "examples/the-lighthouse.xml"],
    ];
    for args in commands {
        let mut child = stagehand(&root(), args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary runs");
        drop(child.stdout.take());
        drop(child.stderr.take());
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(b"1\n");
        let status = wait(&mut child, &args.join(" "));
        drop(stdin);
        assert!(quiet(status) || status.code() == Some(1), "stagehand {}: {status}", args.join(" "));
    }
}

/// Plays `file` with `input` written and standard input then held open; returns the exit status,
/// standard output and standard error.
fn play_held_open(dir: &Path, args: &[&str], input: &str) -> (ExitStatus, String, String) {
    let mut child = stagehand(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let _ = stdin.write_all(input.as_bytes());
    let _ = stdin.flush();
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let readers = std::thread::spawn(move || {
        let (mut out, mut err) = (String::new(), String::new());
        let _ = stdout.read_to_string(&mut out);
        let _ = stderr.read_to_string(&mut err);
        (out, err)
    });
    let status = wait(&mut child, &args.join(" "));
    drop(stdin);
    let (out, err) = readers.join().expect("the output");
    (status, out, err)
}

#[test]
fn piped_play_ends_at_the_end_with_standard_input_still_open() {
    let (status, out, err) = play_held_open(&root(), &["play", "examples/the-crossing.json"], "1\n");
    assert_eq!(status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("— the end —"), "{out}");
}

#[test]
fn piped_lines_do_not_wait_for_enter_only_menus_read_a_line() {
    // The example script: two lines, then a menu; the first option leads on to the end.
    let dir = tempfile::tempdir().expect("a temporary directory");
    common::copy(dir.path(), &["club-fair.dialogue.md", "club-fair.world.lua"]);
    let (status, out, err) = play_held_open(dir.path(), &["play", "club-fair.dialogue.md"], "1\n");
    assert_eq!(status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("serious biscuits") && out.contains("> 1") && out.contains("— the end —"), "{out}");
    // The terminal's pace, asked for: every line waits for Enter again, so one Enter shows the
    // second line and not yet the menu.
    let paced = common::run_in(dir.path(), &["play", "club-fair.dialogue.md", "--pace", "enter"], "\n");
    assert!(paced.contains("serious biscuits") && !paced.contains("Join the art club."), "{paced}");
    assert!(paced.ends_with("--- exit 1\n"), "the input ended before the story did: {paced}");
}

#[test]
fn a_ring_of_lines_piped_is_stopped_and_a_long_story_is_not() {
    // A line that leads back to itself: nobody paces the lines when piped, so it would play for
    // ever with standard input open, keeping every line for undo (P14).
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("ring.dialogue.md"), "# Loop\n\nAround and around.\n\n=> [again](#loop)\n")
        .expect("written");
    let (status, out, err) = play_held_open(dir.path(), &["play", "ring.dialogue.md"], "");
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(err.contains("no menu or question") && err.contains("--pace enter"), "{err}");
    let said = out.matches("Around and around.").count();
    assert!((10_000..=10_010).contains(&said), "stopped after its places and 10,000 more lines: {said}");
    // A story of more lines than that margin, with no menu, plays to its end: the bound grows
    // with the document.
    let long: String = (0..12_000).map(|n| format!("Line {n}.\n\n")).collect();
    std::fs::write(dir.path().join("long.dialogue.md"), long).expect("written");
    let (status, out, err) = play_held_open(dir.path(), &["play", "long.dialogue.md"], "");
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(out.contains("Line 11999.") && out.contains("— the end —"), "{}", &out[out.len().saturating_sub(300)..]);
}

#[test]
fn input_not_valid_where_it_is_read_names_its_line_on_standard_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    common::copy(dir.path(), &["club-fair.dialogue.md", "club-fair.world.lua"]);
    let input = "seven\n9\n3\n1\n";
    let (status, out, err) = play_held_open(dir.path(), &["play", "club-fair.dialogue.md"], input);
    assert_eq!(status.code(), Some(0), "{out}\n{err}");
    for line in 1..=3 {
        assert!(err.contains(&format!("input line {line}:")), "{err}");
    }
    assert!(!err.contains("input line 4:"), "{err}");
    assert!(err.contains("choose 1 to 4") && err.contains("option 3 is not available"), "from 1: {err}");
    assert!(!out.contains("Choose an option") && !out.contains("there is no option"), "{out}");
    let (status, out, err) = play_held_open(dir.path(), &["play", "club-fair.dialogue.md", "--strict"], input);
    assert_eq!(status.code(), Some(2), "{out}\n{err}");
    assert!(err.contains("input line 1:"), "{err}");
}

#[test]
fn a_file_past_the_size_limit_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    common::copy(dir.path(), &["club-fair.dialogue.md", "club-fair.world.lua", "the-crossing.json"]);
    let limited = |args: &[&str]| {
        let output = stagehand(dir.path(), args)
            .env("STAGEHAND_MAX_FILE_SIZE", "1KiB")
            .stdin(Stdio::null())
            .output()
            .expect("the binary runs");
        (output.status.code(), String::from_utf8_lossy(&output.stderr).into_owned())
    };
    for args in [
        &["play", "club-fair.dialogue.md"][..],
        &["play", "the-crossing.json"],
        &["compile", "club-fair.dialogue.md"],
        &["check", "the-crossing.json"],
        &["graph", "club-fair.dialogue.md"],
    ] {
        let (code, err) = limited(args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains("larger than 1 KiB") && err.contains("STAGEHAND_MAX_FILE_SIZE"), "{args:?}: {err}");
    }
    // A small script whose world, configuration or save is too large.
    std::fs::write(dir.path().join("tiny.dialogue.md"), "- Stay.\n- Go.\n").expect("written");
    std::fs::write(dir.path().join("big.world.lua"), format!("-- {}\n", "x".repeat(2048))).expect("written");
    std::fs::write(dir.path().join("big.toml"), format!("# {}\n", "x".repeat(2048))).expect("written");
    std::fs::write(dir.path().join("big.save.json"), format!("{{\"pad\": \"{}\"}}", "x".repeat(2048)))
        .expect("written");
    for (args, file) in [
        (&["play", "tiny.dialogue.md", "--world", "big.world.lua"][..], "big.world.lua"),
        (&["play", "tiny.dialogue.md", "--config", "big.toml"], "big.toml"),
        (&["compile", "tiny.dialogue.md", "--config", "big.toml"], "big.toml"),
    ] {
        let (code, err) = limited(args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(err.contains(file) && err.contains("larger than 1 KiB"), "{args:?}: {err}");
    }
    let output = stagehand(dir.path(), &["play", "tiny.dialogue.md"])
        .env("STAGEHAND_MAX_FILE_SIZE", "1KiB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(b":load big.save.json\n")?;
            child.wait_with_output()
        })
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{err}");
    assert!(err.contains("big.save.json") && err.contains("larger than 1 KiB"), "{err}");
    #[cfg(unix)]
    {
        let output = stagehand(dir.path(), &["compile", "/dev/zero"])
            .env("STAGEHAND_MAX_FILE_SIZE", "4MiB")
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{err}");
        assert!(err.contains("/dev/zero") && err.contains("larger than 4 MiB"), "{err}");
    }
}

#[test]
fn compile_says_what_a_file_that_is_not_a_script_is() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    common::copy(dir.path(), &["the-crossing.json", "the-lighthouse.xml"]);
    let playbook = root().join("conformance/stagehand/random-dynamic-weights/playbook.json");
    std::fs::copy(playbook, dir.path().join("gate.json")).expect("copied");
    for (file, what, command) in [
        ("gate.json", "a playbook", "stagehand play gate.json"),
        ("the-crossing.json", "a ChatMapper project", "stagehand play the-crossing.json"),
        ("the-lighthouse.xml", "a ChatMapper project", "stagehand play the-lighthouse.xml"),
    ] {
        let output = stagehand(dir.path(), &["compile", file]).output().expect("the binary runs");
        let err = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{file}: {err}");
        assert!(output.stdout.is_empty(), "{file}: nothing is written");
        assert!(err.contains(what) && err.contains(command), "{file}: {err}");
    }
}

#[test]
fn conform_reads_a_case_under_the_size_limit_too() {
    // A case's files are read as every other file is: past the limit the case is broken, with the
    // limit named, and the harness never holds more than the limit of any file.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let case = dir.path().join("a-jump");
    std::fs::create_dir(&case).expect("made");
    let corpus = common::root().join("conformance/dialoguedown/playable/a-jump");
    for file in ["fixture.json", "playbook.json", "source.dialogue.md"] {
        std::fs::copy(corpus.join(file), case.join(file)).expect("copied");
    }
    let playbook = std::fs::read_to_string(case.join("playbook.json")).expect("read");
    std::fs::write(case.join("playbook.json"), format!("{playbook}{}", " ".repeat(4096))).expect("padded");
    let conform = |limit: Option<&str>| {
        let mut command = stagehand(dir.path(), &["conform", "a-jump"]);
        if let Some(limit) = limit {
            command.env("STAGEHAND_MAX_FILE_SIZE", limit);
        }
        let output = command.stdin(Stdio::null()).output().expect("the binary runs");
        (output.status.code(), String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let (code, out) = conform(None);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = conform(Some("4KiB"));
    assert_ne!(code, Some(0), "{out}");
    assert!(out.contains("playbook.json") && out.contains("larger than 4 KiB"), "{out}");
}
