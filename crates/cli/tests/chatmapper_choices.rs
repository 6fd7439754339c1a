//! `stagehand play` and `check` on what a ChatMapper menu is made of: player lines without Menu
//! Text (played as lines, or as choices with `--player-lines-as-choices`), and `:why` naming the
//! options that conditions closed.

mod common;

use common::{lines, run, run_in};

/// The keeper asks; the player's two answers have Dialogue Text and no Menu Text.
const GATE: &str = "conformance/chatmapper/player-lines-without-menu-text-play-as-lines/project.json";

/// Whether each of `parts` occurs in `text`, each after the one before.
fn in_order(text: &str, parts: &[&str]) -> bool {
    let mut rest = text;
    parts.iter().all(|part| match rest.find(part) {
        Some(at) => {
            rest = &rest[at + part.len()..];
            true
        }
        None => false,
    })
}

#[test]
fn player_lines_play_as_lines_by_default() {
    let transcript = run(&["play", GATE], &lines(&["", "", ""]));
    assert!(in_order(&transcript, &["Guide: Who goes there?", "Player: A friend.", "Guide: Welcome."]), "{transcript}");
    assert!(!transcript.contains("  1. "), "no menu: {transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
}

#[test]
fn player_lines_as_choices_makes_a_menu_of_them() {
    let transcript = run(&["play", GATE, "--player-lines-as-choices"], &lines(&["", "2", "", ""]));
    assert!(transcript.contains("  1. A friend.\n  2. Nobody.\n"), "{transcript}");
    assert!(in_order(&transcript, &["> 2\nPlayer: Nobody.", "Guide: Begone."]), "{transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
    let help = run(&["play", "--help"], "");
    assert!(help.contains("--player-lines-as-choices"), "{help}");
}

#[test]
fn check_names_the_option_where_player_lines_stand_at_a_branch() {
    let transcript = run(&["check", GATE], "");
    let warnings: Vec<&str> = transcript.lines().filter(|l| l.contains("has no Menu Text at a branch")).collect();
    assert_eq!(warnings.len(), 2, "{transcript}");
    assert!(warnings[0].starts_with("warning[chatmapper]: conversation 1, entry 2:"), "{transcript}");
    assert!(warnings.iter().all(|w| w.contains("--player-lines-as-choices")), "{transcript}");
}

const DOORS: &str = r#"{"Title": "Doors", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "Hall"}, "DialogNodes": [
  {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"},
   "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
  {"ID": 1, "Fields": {"Title": "Ask", "Dialogue Text": "Which way?"}, "OutgoingLinks": [
    {"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 2},
    {"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 3},
    {"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 4}]},
  {"ID": 2, "Fields": {"Title": "door", "Menu Text": "The door."}},
  {"ID": 3, "ConditionsString": "Variable[\"has_key\"] == true", "Fields": {"Title": "gate", "Menu Text": "The gate."}},
  {"ID": 4, "Fields": {"Title": "wall", "Menu Text": "The wall."}}
 ]}]}}"#;

#[test]
fn why_lists_the_options_closed_by_conditions() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("doors.json"), DOORS).expect("written");
    let transcript = run_in(dir.path(), &["play", "doors.json"], &lines(&["", ":why", ":quit"]));
    assert!(transcript.contains("  1. The door.\n  2. The wall.\n"), "{transcript}");
    assert!(transcript.contains("Closed by their conditions (false now):"), "{transcript}");
    assert!(
        transcript
            .contains(r#"  - "The gate.": entry 3 of conversation 1 ("Hall"), condition Variable["has_key"] == true"#),
        "{transcript}"
    );
    assert!(!transcript.contains("so every option is open"), "{transcript}");
}

#[test]
fn a_ring_of_groups_stops_the_run_with_its_reason_and_check_warns() {
    let ring = "conformance/chatmapper/a-ring-of-groups-is-refused-as-a-possible-loop/project.json";
    let transcript = run(&["play", ring], &lines(&["", ":quit"]));
    assert!(transcript.contains("refused (endless-loop)"), "{transcript}");
    assert!(transcript.contains("(a ring of groups)"), "{transcript}");
    assert!(transcript.contains("the run is stuck: the conversation was stopped as a possible loop"), "{transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
    let checked = run(&["check", ring], "");
    assert!(checked.contains("warning[chatmapper]: conversation 1, entry 2: the groups entry 2 of conversation 1, entry 3 of conversation 1 expand into each other"), "{checked}");
}

#[test]
fn why_shows_a_closed_option_as_the_menu_would_label_it() {
    // The closed option's Menu Text is markup: `:why` shows the label a menu would show, not
    // the raw text (`[f]`, emphasis tags, a picture token).
    let doors = DOORS.replace(r#""Menu Text": "The gate.""#, r#""Menu Text": "[f]The [em1]gate[/em1].[pic=2]""#);
    assert_ne!(doors, DOORS);
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("doors.json"), doors).expect("written");
    let transcript = run_in(dir.path(), &["play", "doors.json"], &lines(&["", ":why", ":quit"]));
    assert!(
        transcript
            .contains(r#"  - "The gate.": entry 3 of conversation 1 ("Hall"), condition Variable["has_key"] == true"#),
        "{transcript}"
    );
    assert!(!transcript.contains("[f]") && !transcript.contains("[em1]"), "{transcript}");
}
