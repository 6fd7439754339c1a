//! Shared by the binary's tests: running `stagehand` with piped input, and in a pseudo-terminal.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use expectrl::{Eof, Session, WaitStatus};

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Copies files from `examples/` into `dir`.
pub fn copy(dir: &Path, files: &[&str]) {
    let examples = root().join("examples");
    for file in files {
        std::fs::copy(examples.join(file), dir.join(file)).expect("copied");
    }
}

/// Runs `stagehand ARGS` in `dir` with `input` piped in; the transcript shows the command, its
/// standard output, its standard error and its exit code, with `dir`'s own path written `[dir]`.
pub fn run_in(dir: &Path, args: &[&str], input: &str) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    // The player may stop reading before the input ends (a refusal); that is not an error.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().expect("the binary finishes");
    let text = format!(
        "$ stagehand {}\n{}--- stderr\n{}--- exit {}\n",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
        output.status.code().unwrap_or(-1)
    );
    text.replace(&dir.display().to_string(), "[dir]")
}

/// [`run_in`] at the repository's root.
pub fn run(args: &[&str], input: &str) -> String {
    run_in(&root(), args, input)
}

/// Input lines, each ended by a newline.
pub fn lines(lines: &[&str]) -> String {
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// Starts `stagehand ARGS` in `dir` in a pseudo-terminal.
pub fn spawn(dir: &Path, args: &[&str]) -> Session {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagehand"));
    command.args(args).current_dir(dir).env("TERM", "xterm").env_remove("NO_COLOR");
    let mut session = Session::spawn(command).expect("the player starts in a pseudo-terminal");
    // Wide, so that text wraps only where a test narrows the terminal.
    session.get_process_mut().set_window_size(200, 50).expect("the terminal's size");
    // Only a safety net against a hang: every wait is for output the player must print.
    session.set_expect_timeout(Some(Duration::from_secs(120)));
    session
}

/// Sets the terminal's width in columns.
pub fn resize(session: &mut Session, columns: u16) {
    session.get_process_mut().set_window_size(columns, 50).expect("the terminal's size");
}

/// Waits until the terminal shows `needle`.
pub fn expect(session: &mut Session, needle: &str) {
    if let Err(error) = session.expect(needle) {
        panic!("the terminal never showed {needle:?}: {error}");
    }
}

/// Types a line.
pub fn send(session: &mut Session, line: &str) {
    session.send_line(line).expect("typed");
}

/// Waits for the player to stop, and holds it to exit status 0.
pub fn finish(mut session: Session) {
    session.expect(Eof).expect("the player stops");
    match session.get_process().wait().expect("an exit status") {
        WaitStatus::Exited(_, code) => assert_eq!(code, 0),
        other => panic!("the player stopped with {other:?}"),
    }
}

/// Runs `stagehand ARGS` in `place`, its state folder `place/state` (and no `HOME`): the exit
/// status, standard output and standard error.
pub fn stagehand(place: &Path, args: &[&str]) -> (i32, String, String) {
    let Output { status, stdout, stderr } = Command::new(env!("CARGO_BIN_EXE_stagehand"))
        .args(args)
        .current_dir(place)
        .env("XDG_STATE_HOME", place.join("state"))
        .env_remove("HOME")
        .output()
        .expect("the binary runs");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("UTF-8");
    (status.code().expect("an exit status"), text(stdout), text(stderr))
}
