//! `:save` in `stagehand play`: it never writes over the story's own files, writes over another
//! file only when it is a Stagehand save (or `:save!` says so), and replaces a save atomically.

mod common;

use common::{copy, lines, run_in};

const SCRIPT: &str = "club-fair.dialogue.md";
const WORLD: &str = "club-fair.world.lua";

fn play(dir: &std::path::Path, input: &[&str]) -> String {
    run_in(dir, &["play", SCRIPT, "--world", WORLD], &lines(input))
}

#[test]
fn a_save_never_overwrites_the_script_its_world_or_its_config() {
    let dir = tempfile::tempdir().expect("a folder");
    copy(dir.path(), &[SCRIPT, WORLD]);
    std::fs::write(dir.path().join("dialogue.toml"), "mode = \"best-effort\"\n").expect("a config");
    let before: Vec<String> = [SCRIPT, WORLD, "dialogue.toml"]
        .iter()
        .map(|f| std::fs::read_to_string(dir.path().join(f)).expect("reads"))
        .collect();
    let transcript = play(
        dir.path(),
        &["", ":save club-fair.dialogue.md", ":save! ./club-fair.world.lua", ":save dialogue.toml", ":quit"],
    );
    for (file, text) in [SCRIPT, WORLD, "dialogue.toml"].iter().zip(&before) {
        assert_eq!(&std::fs::read_to_string(dir.path().join(file)).expect("reads"), text, "{file}: {transcript}");
    }
    assert!(transcript.contains("club-fair.dialogue.md is one of the story's own files"), "{transcript}");
    assert!(transcript.contains("./club-fair.world.lua is one of the story's own files"), "{transcript}");
    assert!(transcript.contains("dialogue.toml is one of the story's own files"), "{transcript}");
}

#[test]
fn a_save_overwrites_another_file_only_when_it_is_a_save_or_when_told_to() {
    let dir = tempfile::tempdir().expect("a folder");
    copy(dir.path(), &[SCRIPT, WORLD]);
    std::fs::write(dir.path().join("notes.txt"), "my notes\n").expect("notes");
    let transcript = play(dir.path(), &["", ":save notes.txt", ":save run.json", ":save run.json", ":quit"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("notes.txt")).expect("reads"), "my notes\n", "{transcript}");
    assert!(transcript.contains("notes.txt exists and is not a Stagehand save"), "{transcript}");
    assert!(transcript.contains(":save! notes.txt"), "the way to overwrite it is named: {transcript}");
    assert_eq!(transcript.matches("(saved to run.json)").count(), 2, "a save is replaced by a save: {transcript}");
    let told = play(dir.path(), &["", ":save! notes.txt", ":quit"]);
    assert!(told.contains("(saved to notes.txt)"), "{told}");
    let save = std::fs::read_to_string(dir.path().join("notes.txt")).expect("reads");
    assert!(save.contains("\"stagehand-save\": 0"), "{save}");
    // The writes went through a temporary file renamed into place: none is left behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("lists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into())
        .collect();
    names.sort();
    assert_eq!(names, [SCRIPT, WORLD, "notes.txt", "run.json"]);
}
