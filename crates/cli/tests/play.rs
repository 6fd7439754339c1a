//! `stagehand play` and `stagehand graph` driven as a person or a CI job drives them: piped input,
//! one choice per line (lines play on without waiting, unless `--pace enter` asks for an Enter
//! after each), and the transcript checked as a snapshot.

mod common;

use std::path::Path;

use common::{lines, root, run, run_in};

const EXAMPLE: &str = "examples/club-fair.dialogue.md";
const WORLD: &str = "examples/club-fair.world.lua";

#[test]
fn the_example_plays_to_the_end_with_its_world() {
    // The world fails JoinClub once, so the run holds there until Enter retries it.
    let transcript = run(&["play", EXAMPLE, "--world", WORLD, "--seed", "3"], &lines(&["2", ""]));
    assert!(!transcript.contains('\x1b'), "no escape codes without a terminal");
    insta::assert_snapshot!(transcript);
}

#[test]
fn an_unavailable_option_is_refused_and_why_says_why() {
    let input = lines(&["", "", "3", "1", ":why", ":undo", ":why", "4", ":history", "", "", "", "", "", ""]);
    let transcript = run(&["play", EXAMPLE, "--world", WORLD, "--seed", "1", "--pace", "enter"], &input);
    assert!(
        transcript.contains("stagehand play: input line 3: refused (unavailable-option): option 3"),
        "{transcript}"
    );
    insta::assert_snapshot!(transcript);
}

#[test]
fn without_a_world_unknown_keys_are_false_and_warned_about_once() {
    // The script alone, so no world sits beside it.
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::copy(root().join(EXAMPLE), dir.path().join("club-fair.dialogue.md")).expect("copied");
    let input = lines(&["", ":restart", "1"]);
    let transcript = run_in(dir.path(), &["play", "club-fair.dialogue.md", "--seed", "9"], &input);
    assert_eq!(transcript.matches("warning: nobody answers You.HasTicket").count(), 1, "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn a_random_choice_follows_the_seed_and_a_restart_draws_on() {
    let script = "conformance/stagehand/random-static-weights/source.dialogue.md";
    let input = lines(&["", ":restart", "", "", ""]);
    let transcript = run(&["play", script, "--seed", "4", "--pace", "enter"], &input);
    // The picks conformance/stagehand/random-static-weights pins for seed 4.
    let sun = transcript.find("The Sun").expect("the first draw is the Sun");
    let moon = transcript.find("The Moon").expect("the second draw is the Moon");
    assert!(sun < moon, "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn a_playbook_plays_with_facts_for_a_world() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("facts.toml"), "[Hero]\nLuck = 0\nFear = 2\n").expect("written");
    let playbook = root().join("conformance/stagehand/random-dynamic-weights/playbook.json");
    std::fs::copy(playbook, dir.path().join("gate.json")).expect("copied");
    let transcript = run_in(dir.path(), &["play", "gate.json", "--world", "facts.toml"], "");
    assert!(transcript.contains("Turn around and go home."), "{transcript}");
    insta::assert_snapshot!(transcript);
}

/// Plays the example into the art club, saves, and quits; returns the transcript.
fn save_after_the_art_club(dir: &Path) -> String {
    run_in(
        dir,
        &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua", "--pace", "enter"],
        &lines(&["", "", "1", "", ":save fair.save.json", ":quit"]),
    )
}

fn copy_example(dir: &Path) {
    for file in ["club-fair.dialogue.md", "club-fair.world.lua"] {
        std::fs::copy(root().join("examples").join(file), dir.join(file)).expect("copied");
    }
}

fn edit(dir: &Path, from: &str, to: &str) {
    let path = dir.join("club-fair.dialogue.md");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(text.contains(from), "the example still says {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).expect("written");
}

#[test]
fn a_save_loads_after_a_line_is_reworded() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_example(dir.path());
    let saved = save_after_the_art_club(dir.path());
    assert!(saved.contains("(saved to fair.save.json)"), "{saved}");
    edit(dir.path(), "Every table wants *you*.", "Every single table wants *you*.");
    let loaded = run_in(
        dir.path(),
        &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua", "--seed", "3"],
        &lines(&[":load fair.save.json"]),
    );
    insta::assert_snapshot!(format!("{saved}\n{loaded}"));
}

#[test]
fn a_save_loads_after_a_scene_is_added() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_example(dir.path());
    save_after_the_art_club(dir.path());
    let path = dir.path().join("club-fair.dialogue.md");
    let mut text = std::fs::read_to_string(&path).expect("read");
    text.push_str("\n# The Staff Room\n\nMira: Nobody ever finds the staff room.\n");
    std::fs::write(&path, text).expect("written");
    let loaded = run_in(
        dir.path(),
        &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua"],
        &lines(&[":load fair.save.json"]),
    );
    assert!(loaded.contains("steps replayed"), "{loaded}");
    assert!(loaded.ends_with("--- exit 0\n"), "{loaded}");
}

#[test]
fn a_save_is_refused_when_the_chosen_option_is_gone() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy_example(dir.path());
    save_after_the_art_club(dir.path());
    edit(
        dir.path(),
        "- Join the art club.\n\n  `JoinClub(\"You\", \"Art\")` Mira presses a paintbrush into your hand.\n\n",
        "",
    );
    let refused = run_in(
        dir.path(),
        &["play", "club-fair.dialogue.md", "--world", "club-fair.world.lua"],
        &lines(&[":load fair.save.json", ""]),
    );
    assert!(refused.contains("step"), "{refused}");
    // Options are numbered from 1 in messages, as menus number them.
    assert!(refused.contains("choose option 1 \"Join the art club.\""), "{refused}");
    assert!(refused.contains("no longer option 1") && !refused.contains("position 0"), "{refused}");
    assert!(refused.ends_with("--- exit 1\n"), "{refused}");
    insta::assert_snapshot!(refused);
}

#[test]
fn a_script_that_does_not_compile_is_reported_with_its_place() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("broken.dialogue.md"), "Alice: Off we go.\n\n=> [Nowhere](#nowhere)\n")
        .expect("written");
    let transcript = run_in(dir.path(), &["play", "broken.dialogue.md"], "");
    assert!(transcript.contains("broken.dialogue.md:3:"), "{transcript}");
    assert!(transcript.ends_with("--- exit 1\n"), "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn a_script_plays_and_draws_with_the_dialogue_toml_beside_it_or_the_one_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).expect("written");
    write("tale.dialogue.md", "Hello there.\n\nBob: Hi.\n");
    write("dialogue.toml", "[[speakers]]\nname = \"Narrator\"\ndefault = true\n");
    write("other.toml", "[[speakers]]\nname = \"Storyteller\"\ndefault = true\n");
    write("bad.toml", "[[speakers]]\nname = \"\"\n");
    let play = |extra: &[&str]| run_in(dir.path(), &[&["play", "tale.dialogue.md"], extra].concat(), &lines(&["", ""]));
    let beside = play(&[]);
    assert!(beside.contains("Narrator: Hello there.") && beside.ends_with("--- exit 0\n"), "{beside}");
    let named = play(&["--config", "other.toml"]);
    assert!(named.contains("Storyteller: Hello there.") && named.ends_with("--- exit 0\n"), "{named}");
    let bad = play(&["--config", "bad.toml"]);
    assert!(bad.contains("bad.toml") && bad.contains("line 2") && bad.ends_with("--- exit 1\n"), "{bad}");
    let graph = |extra: &[&str]| {
        run_in(dir.path(), &[&["graph", "tale.dialogue.md", "--format", "mermaid"], extra].concat(), "")
    };
    assert!(graph(&[]).contains("0: Narrator: Hello there."), "{}", graph(&[]));
    assert!(graph(&["--config", "other.toml"]).contains("0: Storyteller: Hello there."));
}

#[test]
fn a_playbook_that_does_not_read_is_reported_with_its_place() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("bad.json"), "{\n  \"format\": {\n    \"version\": 0,\n  }\n}\n").expect("written");
    let transcript = run_in(dir.path(), &["play", "bad.json"], "");
    assert!(transcript.contains("bad.json:4:"), "{transcript}");
    assert!(transcript.ends_with("--- exit 1\n"), "{transcript}");
}

#[test]
fn play_starts_at_an_anchor_and_refuses_one_it_lacks() {
    let transcript = run(&["play", EXAMPLE, "--world", WORLD, "--start", "the-secret-club"], &lines(&[":quit"]));
    assert!(transcript.contains("Stranger: You found us."), "{transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
    let transcript = run(&["play", EXAMPLE, "--start", "the-moon"], "");
    assert!(transcript.contains("no-such-anchor") && transcript.contains("the-party"), "{transcript}");
    assert!(transcript.ends_with("--- exit 1\n"), "{transcript}");
}

#[test]
fn a_world_that_does_not_load_is_reported() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("broken.lua"), "function JoinClub(\n").expect("written");
    std::fs::copy(root().join(EXAMPLE), dir.path().join("fair.dialogue.md")).expect("copied");
    let transcript = run_in(dir.path(), &["play", "fair.dialogue.md", "--world", "broken.lua"], "");
    assert!(transcript.contains("broken.lua"), "{transcript}");
    assert!(transcript.ends_with("--- exit 1\n"), "{transcript}");
}

#[test]
fn input_that_ends_before_the_story_fails() {
    let transcript = run(&["play", EXAMPLE, "--world", WORLD], "\n");
    assert!(transcript.contains("the input ended before the story did"), "{transcript}");
    assert!(transcript.ends_with("--- exit 1\n"), "{transcript}");
}

#[test]
fn the_graph_draws_as_dot() {
    insta::assert_snapshot!(run(&["graph", EXAMPLE, "--format", "dot"], ""));
}

#[test]
fn the_graph_draws_as_mermaid() {
    insta::assert_snapshot!(run(&["graph", EXAMPLE, "--format", "mermaid"], ""));
}

#[test]
fn the_random_choice_cases_conform() {
    let transcript = run(
        &[
            "conform",
            "conformance/stagehand/random-auto-weights",
            "conformance/stagehand/random-conditional-option",
            "conformance/stagehand/random-dynamic-weights",
            "conformance/stagehand/random-static-weights",
        ],
        "",
    );
    assert!(transcript.contains("4 passed, 0 failed"), "{transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
}

#[test]
fn the_random_choice_cases_compile_from_their_sources() {
    let cases = root().join("conformance/stagehand");
    let mut checked = 0;
    for case in std::fs::read_dir(&cases).expect("the cases") {
        let dir = case.expect("a case").path();
        // The host-contract cases (host-*/) keep only their scripts; the harness compiles them.
        if !dir.file_name().is_some_and(|name| name.to_string_lossy().starts_with("random-")) {
            continue;
        }
        let source = std::fs::read_to_string(dir.join("source.dialogue.md")).expect("a source");
        let compiled = stagehand_dialoguedown::compile(&source, "source.dialogue.md", &Default::default());
        let playbook = compiled.playbook.expect("the source compiles");
        let json = std::fs::read_to_string(dir.join("playbook.json")).expect("a playbook");
        assert_eq!(stagehand_playbook::read(&json).expect("the playbook reads"), playbook, "{}", dir.display());
        checked += 1;
    }
    assert_eq!(checked, 4);
}

#[test]
fn a_script_named_in_capitals_plays_as_a_script() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("SHOUT.MD"), "Alice: Hello.\n").expect("written");
    let transcript = run_in(dir.path(), &["play", "SHOUT.MD"], &lines(&["", ""]));
    assert!(transcript.contains("Hello."), "{transcript}");
}

#[test]
fn a_binary_playbook_plays_as_its_json_form_does() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    common::copy(dir.path(), &["club-fair.dialogue.md", "club-fair.world.lua"]);
    let json = run_in(dir.path(), &["compile", "club-fair.dialogue.md", "-o", "story.json"], "");
    let binary = run_in(dir.path(), &["compile", "--binary", "club-fair.dialogue.md", "-o", "story.bin"], "");
    assert!(json.ends_with("--- exit 0\n") && binary.ends_with("--- exit 0\n"), "{json}{binary}");
    let bytes = std::fs::read(dir.path().join("story.bin")).expect("the binary playbook");
    assert!(stagehand_playbook::is_binary(&bytes), "compile --binary writes the binary form");
    let from_json = stagehand_playbook::read(&std::fs::read_to_string(dir.path().join("story.json")).expect("json"));
    assert_eq!(stagehand_playbook::read_binary(&bytes).ok(), from_json.ok(), "the same playbook");

    let input = lines(&["2", ""]);
    let played = |file: &str| {
        run_in(dir.path(), &["play", file, "--world", "club-fair.world.lua", "--seed", "3"], &input)
            .replace(file, "PLAYBOOK")
    };
    let (from_json, from_binary) = (played("story.json"), played("story.bin"));
    assert!(from_binary.ends_with("--- exit 0\n"), "{from_binary}");
    assert_eq!(from_binary, from_json);

    let mut damaged = bytes.clone();
    damaged.truncate(bytes.len() / 2);
    std::fs::write(dir.path().join("cut"), damaged).expect("written");
    let cut = run_in(dir.path(), &["play", "cut"], "");
    assert!(cut.contains("cut: not a playbook: malformed binary playbook: it ends early"), "{cut}");

    // check reads the binary form as play does, and reports it as it reports the JSON form.
    let checked = |file: &str| run_in(dir.path(), &["check", file], "").replace(file, "PLAYBOOK");
    let (checked_json, checked_binary) = (checked("story.json"), checked("story.bin"));
    assert!(checked_binary.ends_with("--- exit 0\n"), "{checked_binary}");
    assert_eq!(checked_binary, checked_json);
    let cut = run_in(dir.path(), &["check", "cut"], "");
    assert!(cut.contains("malformed binary playbook") && cut.ends_with("--- exit 1\n"), "{cut}");
}
