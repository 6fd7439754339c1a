//! `stagehand play` with a ChatMapper project in a real terminal (a pseudo-terminal): the person
//! answers the input prompt the engine asks, sees the speaker in colour, picks, undoes and quits;
//! and a world beside a script is used.

mod common;

use common::{copy, expect, finish, send, spawn};

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
