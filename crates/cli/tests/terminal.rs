//! `stagehand play` in a real terminal (a pseudo-terminal), as a person plays it: colours and
//! styles, a dimmed unavailable option, undo, save, an edit to the script, and load; text wrapped
//! to the terminal's width, the line editor's history, and either pace.

mod common;

use std::path::Path;

use common::{copy, expect, finish, resize, send, spawn};

fn example(dir: &Path) {
    copy(dir, &["club-fair.dialogue.md", "club-fair.world.lua"]);
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
    copy(dir.path(), &["club-fair.dialogue.md"]);
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

#[test]
fn text_wraps_to_the_terminal_and_the_line_editor_recalls_a_move() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    example(dir.path());
    let mut session = spawn(dir.path(), &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua"]);
    expect(&mut session, "Welcome to the club fair!");
    resize(&mut session, 40);
    send(&mut session, "");
    // Forty columns: the line breaks between words, and goes on indented.
    expect(&mut session, "paints the fountain\r\n  on Fridays.");
    send(&mut session, "");
    expect(&mut session, "Just look around.");
    send(&mut session, "1");
    expect(&mut session, "Join the art club.");
    send(&mut session, ":undo");
    expect(&mut session, "(undone)");
    expect(&mut session, "Just look around.");
    // Up twice recalls the move before the :undo, shown after the prompt; Enter takes it again.
    session.send("\x1b[A\x1b[A").expect("typed");
    expect(&mut session, "choose › \x1b[0m1");
    send(&mut session, "");
    expect(&mut session, "\r\nJoin the art club.\r\n");
    send(&mut session, "");
    expect(&mut session, "Mira presses a paintbrush");
    send(&mut session, ":quit");
    finish(session);
}

#[test]
fn at_the_choices_pace_a_terminal_waits_only_for_menus() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    example(dir.path());
    let mut session =
        spawn(dir.path(), &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua", "--pace", "choices"]);
    // No Enter is pressed: both lines and the menu come at once.
    expect(&mut session, "Welcome to the club fair!");
    expect(&mut session, "serious biscuits");
    expect(&mut session, "4. Just look around.");
    send(&mut session, "1");
    expect(&mut session, "Mira presses a paintbrush into your hand.");
    expect(&mut session, "Tonight is the fair party");
    send(&mut session, ":quit");
    finish(session);
}

#[test]
fn a_large_file_shows_its_progress_while_it_loads() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let playbook = common::root().join("conformance/stagehand/random-dynamic-weights/playbook.json");
    let json = std::fs::read_to_string(playbook).expect("the playbook");
    // 33 MiB, most of it a property the reader ignores.
    let padded = json.replacen('{', &format!("{{\"padding\": \"{}\",", "x".repeat(33 << 20)), 1);
    std::fs::write(dir.path().join("gate.json"), padded).expect("written");
    let mut session = spawn(dir.path(), &["play", "gate.json"]);
    expect(&mut session, "reading gate.json: 32 MiB of 33.0 MiB");
    expect(&mut session, "loading gate.json (33.0 MiB)…");
    expect(&mut session, "Halt! Who goes there?");
    send(&mut session, ":quit");
    finish(session);
}
