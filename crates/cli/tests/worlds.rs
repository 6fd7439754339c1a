//! A world that cannot carry out a command: the person is offered a way on (skip the command, or
//! edit the world and `:restart`, which reads the files again), not only `:undo` and `:quit`.

mod common;

use std::path::Path;

use common::{expect, finish, lines, run_in, send, spawn};

const SCRIPT: &str = "Ada: Ready?\n\nAda: Up we go. `Fly(\"Ada\")`\n\nAda: Landed.\n";
const WORLD_WITHOUT_FLY: &str = "-- Fly is not written yet.\nLanded = true\n";
const WORLD_WITH_FLY: &str = "function Fly(who) print(who .. \" flies\") end\n";

fn story(dir: &Path, world: &str) {
    std::fs::write(dir.join("fly.dialogue.md"), SCRIPT).expect("the script");
    std::fs::write(dir.join("fly.world.lua"), world).expect("the world");
}

#[test]
fn a_command_the_world_lacks_can_be_skipped() {
    let dir = tempfile::tempdir().expect("a folder");
    story(dir.path(), WORLD_WITHOUT_FLY);
    let transcript = run_in(dir.path(), &["play", "fly.dialogue.md", "--world", "fly.world.lua"], &lines(&[":skip"]));
    assert!(transcript.contains("defines no function Fly"), "{transcript}");
    assert!(transcript.contains(":skip carries on without it"), "the way on is offered: {transcript}");
    assert!(transcript.contains("(skipped Fly(\"Ada\"))"), "{transcript}");
    assert!(transcript.contains("Ada: Landed."), "the story went on: {transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
    // A save made after the skip (at the Enter-per-line pace, to stop there) loads: the replay
    // skips the command again.
    let saved = run_in(
        dir.path(),
        &["play", "fly.dialogue.md", "--world", "fly.world.lua", "--pace", "enter"],
        &lines(&["", ":skip", ":save fly.save.json", ":quit"]),
    );
    assert!(saved.contains("(saved to fly.save.json)"), "{saved}");
    let loaded =
        run_in(dir.path(), &["play", "fly.dialogue.md", "--world", "fly.world.lua"], &lines(&[":load fly.save.json"]));
    assert!(loaded.contains("(loaded fly.save.json: restored where it was saved)"), "{loaded}");
    assert!(loaded.contains("Ada: Landed."), "{loaded}");
}

#[test]
fn restart_reads_an_edited_world_again() {
    let dir = tempfile::tempdir().expect("a folder");
    story(dir.path(), WORLD_WITHOUT_FLY);
    let mut session = spawn(dir.path(), &["play", "fly.dialogue.md", "--world", "fly.world.lua"]);
    expect(&mut session, "Ready?");
    send(&mut session, "");
    expect(&mut session, "defines no function Fly");
    expect(&mut session, ":restart");
    // The person writes Fly into the world, then restarts.
    std::fs::write(dir.path().join("fly.world.lua"), WORLD_WITH_FLY).expect("the world, edited");
    send(&mut session, ":restart");
    expect(&mut session, "(restarted");
    expect(&mut session, "Ready?");
    send(&mut session, "");
    expect(&mut session, "Ada flies");
    send(&mut session, "");
    expect(&mut session, "Landed.");
    send(&mut session, ":quit");
    finish(session);
}

#[test]
fn a_key_the_given_world_lacks_is_put_to_that_world_not_to_a_missing_one() {
    let dir = tempfile::tempdir().expect("a folder");
    story(dir.path(), WORLD_WITHOUT_FLY);
    std::fs::write(dir.path().join("ask.dialogue.md"), "`Ada.Ready?` Ada: Ready!\n\nAda: Bye.\n").expect("a script");
    let with = run_in(dir.path(), &["play", "ask.dialogue.md", "--world", "fly.world.lua"], &lines(&["", ""]));
    assert!(with.contains("nobody answers Ada.Ready; taking false"), "{with}");
    assert!(with.contains("fly.world.lua does not define it"), "{with}");
    assert!(!with.contains("give a --world"), "a world was given: {with}");
    let without = run_in(dir.path(), &["play", "ask.dialogue.md"], &lines(&["", ""]));
    assert!(without.contains("give a --world"), "{without}");
}
