//! `stagehand play` in a real terminal (a pseudo-terminal), as a person plays it: colours and
//! styles, a dimmed unavailable option, undo, save, an edit to the script, and load.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use expectrl::{Eof, Session, WaitStatus};

fn example(dir: &Path) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    for file in ["club-fair.dialogue.md", "club-fair.world.lua"] {
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
fn a_person_picks_undoes_saves_edits_the_script_and_loads() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    example(dir.path());
    let mut session = spawn(dir.path(), &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua"]);

    // The speaker's name in colour, emphasis in italics, bold in bold.
    expect(&mut session, "\x1b[1;36mMira\x1b[0m: Welcome to the club fair!");
    expect(&mut session, "\x1b[3myou\x1b[23m");
    send(&mut session, "");
    expect(&mut session, "\x1b[1mvery\x1b[22m serious biscuits");
    send(&mut session, "");
    // An unavailable option is dimmed.
    expect(&mut session, "\x1b[2m  3. Show the golden ticket to the hooded stranger. (unavailable)");
    expect(&mut session, "Just look around.");

    // Pick, then take it back.
    send(&mut session, "1");
    expect(&mut session, "Join the art club.");
    send(&mut session, ":undo");
    expect(&mut session, "(undone)");
    expect(&mut session, "Just look around.");

    // Save, edit the script behind the player's back, and load: the journal replays against it.
    let saved = dir.path().join("fair.save.json");
    send(&mut session, ":save fair.save.json");
    expect(&mut session, "(saved to fair.save.json)");
    let script = dir.path().join("club-fair.dialogue.md");
    let text = std::fs::read_to_string(&script).expect("read");
    std::fs::write(&script, text.replace("paints the fountain on Fridays", "paints murals on Fridays"))
        .expect("edited");
    assert!(std::fs::read_to_string(&saved).expect("the save exists").contains("\"stagehand-save\": 0"));
    send(&mut session, ":load fair.save.json");
    expect(&mut session, "steps replayed against it, and play resumes there");
    expect(&mut session, "Just look around.");
    send(&mut session, ":history");
    expect(&mut session, "paints murals on Fridays");

    // Play on: the command is shown as it is performed, and the world's print with it.
    send(&mut session, "1");
    expect(&mut session, "Join the art club.");
    send(&mut session, "");
    expect(&mut session, "JoinClub(\"You\", \"Art\")");
    expect(&mut session, "You joined the Art club");
    send(&mut session, "");
    expect(&mut session, "Tonight is the fair party");
    send(&mut session, ":quit");
    finish(session);
}

#[test]
fn without_a_world_the_person_answers_for_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // The script alone: with its world beside it, the world would answer.
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    std::fs::copy(examples.join("club-fair.dialogue.md"), dir.path().join("club-fair.dialogue.md")).expect("copied");
    let mut session = spawn(dir.path(), &["play", "club-fair.dialogue.md"]);
    expect(&mut session, "Welcome to the club fair!");
    send(&mut session, "");
    expect(&mut session, "serious biscuits");
    send(&mut session, "");
    expect(&mut session, "You.HasTicket (yes/no)");
    send(&mut session, "perhaps");
    expect(&mut session, "You.HasTicket (yes/no)");
    send(&mut session, "yes");
    expect(&mut session, "  3. Show the golden ticket to the hooded stranger.\r\n");
    send(&mut session, "3");
    expect(&mut session, "Show the golden ticket to the hooded stranger.");
    send(&mut session, "");
    expect(&mut session, "You found us.");
    send(&mut session, ":quit");
    finish(session);
}
