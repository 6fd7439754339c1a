//! `stagehand play` with a ChatMapper project in a real terminal (a pseudo-terminal): the person
//! answers the input prompt the engine asks, sees the speaker in colour, picks, undoes and quits;
//! and a world beside a script is pointed out rather than used.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use expectrl::{Eof, Session, WaitStatus};

fn copy(dir: &Path, files: &[&str]) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for file in files {
        std::fs::copy(examples.join(file), dir.join(file)).expect("copied");
    }
}

fn spawn(dir: &Path, args: &[&str]) -> Session {
    let mut command = Command::new(env!("CARGO_BIN_EXE_stagehand"));
    command.args(args).current_dir(dir).env("TERM", "xterm").env_remove("NO_COLOR");
    let mut session = Session::spawn(command).expect("the player starts in a pseudo-terminal");
    // Only a safety net against a hang: every wait below is for output the player must print.
    session.set_expect_timeout(Some(Duration::from_secs(120)));
    session
}

fn expect(session: &mut Session, needle: &str) {
    if let Err(error) = session.expect(needle) {
        panic!("the terminal never showed {needle:?}: {error}");
    }
}

fn send(session: &mut Session, line: &str) {
    session.send_line(line).expect("typed");
}

fn finish(mut session: Session) {
    session.expect(Eof).expect("the player stops");
    match session.get_process().wait().expect("an exit status") {
        WaitStatus::Exited(_, code) => assert_eq!(code, 0),
        other => panic!("the player stopped with {other:?}"),
    }
}

#[test]
fn a_person_answers_the_lighthouse_keeper_and_leaves() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-lighthouse.xml"]);
    let mut session = spawn(dir.path(), &["play", "the-lighthouse.xml"]);
    // The engine's input prompt is asked of the person, before the line that holds it.
    expect(&mut session, "? player name (words): ");
    send(&mut session, "Ada");
    expect(&mut session, "\x1b[1;36mOld Mara\x1b[0m: [Location Change] The lamp room");
    send(&mut session, "");
    expect(&mut session, "Who climbs my stairs at this hour?");
    send(&mut session, "");
    expect(&mut session, "4. Leave");
    send(&mut session, "4");
    expect(&mut session, "I'll leave you to it.");
    send(&mut session, ":undo");
    expect(&mut session, "(undone)");
    expect(&mut session, "4. Leave");
    send(&mut session, "4");
    expect(&mut session, "I'll leave you to it.");
    send(&mut session, "");
    expect(&mut session, "Mind the steps, Ada.");
    send(&mut session, ":quit");
    finish(session);
}

#[test]
fn a_world_beside_the_script_is_used_in_a_terminal() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["club-fair.dialogue.md", "club-fair.world.lua"]);
    let mut session = spawn(dir.path(), &["play", "club-fair.dialogue.md"]);
    expect(&mut session, "using world club-fair.world.lua");
    expect(&mut session, "Welcome to the club fair!");
    send(&mut session, ":quit");
    finish(session);
}
