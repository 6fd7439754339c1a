//! `stagehand play` with ChatMapper projects, piped as a CI job drives it: the crossing both ways
//! (as the runtime semantics page narrates it), a conversation named by title, undo, saves, a
//! native `.cmp` refused, the lighthouse to an end with a scripted answer; and the world found
//! beside a script without `--world`.

mod common;

use std::path::Path;

use common::{copy, lines, run, run_in};

const CROSSING: &str = "examples/the-crossing.json";

/// The opening line's two segments play on to the menu of two, where `pick` is read.
fn crossing_input(pick: &str) -> String {
    lines(&[pick])
}

#[test]
fn the_crossing_taking_the_ferry() {
    let transcript = run(&["play", CROSSING], &crossing_input("1"));
    assert!(!transcript.contains('\x1b'), "no escape codes without a terminal");
    let opening = transcript.find("Ferryman: The river runs high tonight.").expect("the first segment");
    let fare = transcript.find("Ferryman: The last ferry leaves at midnight").expect("the second segment");
    assert!(opening < fare, "{transcript}");
    assert!(transcript.contains("  1. I'll take the crossing.\n  2. I'll wait for morning.\n"), "{transcript}");
    assert!(transcript.contains("Ferryman: Hold the rail."), "{transcript}");
    assert!(transcript.ends_with("— the end —\n--- stderr\n--- exit 0\n"), "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn the_crossing_staying_ashore() {
    let transcript = run(&["play", CROSSING], &crossing_input("2"));
    assert!(transcript.contains("Traveller: I'll wait for morning."), "{transcript}");
    assert!(transcript.contains("Ferryman: Suit yourself."), "{transcript}");
    assert!(!transcript.contains("Hold the rail"), "{transcript}");
    assert!(transcript.ends_with("— the end —\n--- stderr\n--- exit 0\n"), "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn the_crossing_as_xml_plays_the_same() {
    let json = run(&["play", CROSSING], &crossing_input("1"));
    let xml = run(&["play", "examples/the-crossing.xml"], &crossing_input("1"));
    assert_eq!(json.replace("the-crossing.json", "the-crossing.xml"), xml);
}

#[test]
fn a_conversation_is_named_by_title_or_id_and_an_unknown_one_is_refused() {
    let by_title = run(&["play", CROSSING, "--conversation", "The Crossing"], &crossing_input("2"));
    assert!(by_title.contains("Ferryman: The river runs high tonight."), "{by_title}");
    assert!(by_title.ends_with("--- exit 0\n"), "{by_title}");
    let by_id = run(&["play", CROSSING, "--conversation", "1"], &crossing_input("2"));
    assert_eq!(by_id.replace("--conversation 1", "--conversation The Crossing"), by_title);
    let unknown = run(&["play", CROSSING, "--conversation", "The Bridge"], "");
    assert!(unknown.contains("refused (no-such-anchor)") && unknown.contains("The Crossing"), "{unknown}");
    assert!(unknown.contains("the story did not start"), "{unknown}");
    assert!(unknown.ends_with("--- exit 1\n"), "{unknown}");
    let misplaced = run(&["play", CROSSING, "--start", "the-party"], "");
    assert!(misplaced.contains("--conversation"), "{misplaced}");
    assert!(misplaced.ends_with("--- exit 1\n"), "{misplaced}");
}

#[test]
fn undo_takes_back_a_choice_and_the_other_option_can_be_taken() {
    let input = lines(&["", "", ":why", "1", ":undo", ":why", "2", ":history", "", ""]);
    let transcript = run(&["play", CROSSING, "--pace", "enter"], &input);
    assert!(transcript.contains("(undone)"), "{transcript}");
    let undone = transcript.find("(undone)").expect("undone");
    let after = &transcript[undone..];
    assert!(after.contains("  1. I'll take the crossing.\n  2. I'll wait for morning.\n"), "{transcript}");
    assert!(after.contains("Ferryman: Suit yourself."), "{transcript}");
    assert!(!after.contains("Hold the rail"), "the ferry's ending is not replayed: {transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn a_save_loads_where_it_was_saved() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-crossing.json"]);
    let saved = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":save crossing.save.json", ":quit"]));
    assert!(saved.contains("(saved to crossing.save.json)"), "{saved}");
    let save = std::fs::read_to_string(dir.path().join("crossing.save.json")).expect("the save exists");
    assert!(save.contains("\"stagehand-chatmapper-save\": 0"), "{save}");
    assert!(save.contains("\"fingerprint\""), "{save}");
    let loaded = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":load crossing.save.json", "2"]));
    assert!(loaded.contains("(loaded crossing.save.json: restored where it was saved)"), "{loaded}");
    assert!(loaded.contains("Ferryman: Suit yourself."), "{loaded}");
    assert!(loaded.ends_with("--- exit 0\n"), "{loaded}");
    insta::assert_snapshot!(format!("{saved}\n{loaded}"));
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("read");
    assert!(text.contains(from), "the project still says {from:?}");
    std::fs::write(path, text.replacen(from, to, 1)).expect("written");
}

#[test]
fn a_save_replays_into_an_edited_project_and_is_refused_where_it_differs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-crossing.json"]);
    let project = dir.path().join("the-crossing.json");
    let saved = run_in(
        dir.path(),
        &["play", "the-crossing.json", "--pace", "enter"],
        &lines(&["", "", "1", ":save s.json", ":quit"]),
    );
    assert!(saved.contains("(saved to s.json)"), "{saved}");

    // A line reworded: every step still replays.
    edit(&project, "The river runs high tonight.", "The river runs very high tonight.");
    let replayed = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":load s.json"]));
    assert!(replayed.contains("steps replayed"), "{replayed}");
    assert!(replayed.contains("Ferryman: Hold the rail."), "{replayed}");
    assert!(replayed.ends_with("--- exit 0\n"), "{replayed}");

    // The option taken is gone from its place: the load is refused at that step.
    edit(&project, "\"Menu Text\": \"I'll take the crossing.\"", "\"Menu Text\": \"I'll board the ferry.\"");
    let refused = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":load s.json"]));
    assert!(refused.contains("the story now differs at step 4"), "{refused}");
    assert!(refused.ends_with("--- exit 1\n"), "{refused}");
    insta::assert_snapshot!(refused);
}

#[test]
fn a_native_project_is_refused_with_the_exports_named() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("story.cmp"), [0x35, 0x19, 0x59, 0x26, 0x19, 0x47, 0x71, 0xfe, 0, 1, 2, 3])
        .expect("written");
    let transcript = run_in(dir.path(), &["play", "story.cmp"], "");
    assert!(transcript.contains("story.cmp"), "{transcript}");
    assert!(transcript.contains("XML") && transcript.contains("JSON") && transcript.contains("export"), "{transcript}");
    assert!(transcript.ends_with("--- exit 1\n"), "{transcript}");
    insta::assert_snapshot!(transcript);
}

#[test]
fn the_lighthouse_plays_to_an_end_with_a_scripted_answer() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-lighthouse.xml"]);
    std::fs::write(dir.path().join("keeper.toml"), "\"player name\" = \"Ada\"\n").expect("written");
    let args = ["play", "the-lighthouse.xml", "--world", "keeper.toml"];
    // Offer oil, go down to Jörg, fix the door, come back up and light the lamp.
    let input = lines(&["2", "3", "1", "1"]);
    let transcript = run_in(dir.path(), &args, &input);
    assert!(transcript.contains("Jörg: Ja? The door, the Holztür, sticks again."), "{transcript}");
    assert!(transcript.contains("Old Mara: Somewhere, a ship turns for home."), "{transcript}");
    // The script the editor never ran fails, and the person is told on standard error.
    let (out, err) = transcript.split_once("--- stderr\n").expect("the standard error");
    assert!(err.contains("warning: conversation 1 entry 8") && err.contains("'game'"), "{transcript}");
    assert!(!out.contains("conversation 1 entry 8"), "not in the transcript: {transcript}");
    assert!(!transcript.contains("nobody answers"), "{transcript}");
    assert!(out.ends_with("— the end —\n") && err.ends_with("--- exit 0\n"), "{transcript}");
    insta::assert_snapshot!(transcript);

    // Leaving at once: the answer is spoken back.
    let left = run_in(dir.path(), &args, &lines(&["4"]));
    assert!(left.contains("Old Mara: Mind the steps, Ada."), "{left}");
    assert!(left.ends_with("--- exit 0\n"), "{left}");

    // Without a world the prompt is the story's question to the person: piped, it reads a line
    // as a menu does (P1).
    let asked = run_in(dir.path(), &["play", "the-lighthouse.xml"], &lines(&["Ada", "4"]));
    assert!(asked.contains("Old Mara: Mind the steps, Ada."), "{asked}");
    assert!(!asked.contains("nobody answers"), "{asked}");
    assert!(asked.ends_with("--- exit 0\n"), "{asked}");

    // With the input ended there, it is answered with empty words, warned about once.
    let unanswered = run_in(dir.path(), &["play", "the-lighthouse.xml"], "");
    assert!(unanswered.contains("warning: nobody answers player name"), "{unanswered}");
    assert_eq!(unanswered.matches("warning: nobody answers player name").count(), 1, "{unanswered}");
}

#[test]
fn a_world_beside_the_script_is_found_and_named() {
    let input = lines(&["1"]);
    let transcript = run(&["play", "examples/club-fair.dialogue.md"], &input);
    assert!(transcript.contains("--- stderr\nusing world examples/club-fair.world.lua\n"), "{transcript}");
    // The Lua world carries out JoinClub and prints.
    assert!(transcript.contains("  | You joined the Art club"), "{transcript}");
    assert!(!transcript.contains("nobody answers"), "{transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
    insta::assert_snapshot!(transcript);

    // A world given is used as given, without the notice.
    let given = run(&["play", "examples/club-fair.dialogue.md", "--world", "examples/club-fair.world.lua"], &input);
    assert!(!given.contains("using world"), "{given}");
    assert_eq!(
        given.replace(" --world examples/club-fair.world.lua", ""),
        transcript.replace("using world examples/club-fair.world.lua\n", "")
    );

    // Nothing beside it: no world, and no notice.
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["club-fair.dialogue.md"]);
    let alone = run_in(dir.path(), &["play", "club-fair.dialogue.md"], &input);
    assert!(!alone.contains("using world"), "{alone}");
    assert!(alone.contains("warning: nobody answers"), "{alone}");
}

#[test]
fn a_save_keeps_the_answers_the_world_gave() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-lighthouse.xml"]);
    std::fs::write(dir.path().join("keeper.toml"), "\"player name\" = \"Ada\"\n").expect("written");
    let saved = run_in(
        dir.path(),
        &["play", "the-lighthouse.xml", "--world", "keeper.toml"],
        &lines(&[":save l.json", ":quit"]),
    );
    assert!(saved.contains("(saved to l.json)"), "{saved}");
    let save = std::fs::read_to_string(dir.path().join("l.json")).expect("the save exists");
    assert!(save.contains("\"by\": \"world\"") && save.contains("\"Ada\""), "{save}");
    // Loaded without the world: the opening asks the person, then the save's answer comes from
    // its journal.
    let loaded = run_in(dir.path(), &["play", "the-lighthouse.xml"], &lines(&["Bea", ":load l.json", "4"]));
    assert!(loaded.contains("restored where it was saved"), "{loaded}");
    assert!(loaded.contains("Old Mara: Mind the steps, Ada."), "{loaded}");
    assert!(loaded.ends_with("--- exit 0\n"), "{loaded}");
}

#[test]
fn a_save_of_a_script_is_not_loaded_into_a_project() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-crossing.json", "club-fair.dialogue.md"]);
    run_in(dir.path(), &["play", "club-fair.dialogue.md"], &lines(&[":save fair.json", ":quit"]));
    let refused = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":load fair.json"]));
    assert!(refused.contains("a save of a DialogueDown script, not of a ChatMapper project"), "{refused}");
    assert!(refused.ends_with("--- exit 1\n"), "{refused}");
}

/// A line, then two silent entries linking to each other; the first one's condition does not
/// compile, so it counts as true and is logged on every pass.
const RING: &str = r#"{"Title": "Ring", "Assets": {"Actors": [{"ID": 1, "Fields": {"Name": "Mara"}}],
 "Conversations": [{"ID": 1, "Fields": {"Title": "Ring"}, "DialogNodes": [
  {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"},
   "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
  {"ID": 1, "Fields": {"Actor": "1", "Dialogue Text": "Round we go.", "Title": "Talk"},
   "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 2}]},
  {"ID": 2, "Fields": {"Title": "A", "Dialogue Text": ""}, "ConditionsString": "x x",
   "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 2, "DestinationConvoID": 1, "DestinationDialogID": 3}]},
  {"ID": 3, "Fields": {"Title": "B", "Dialogue Text": ""},
   "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 3, "DestinationConvoID": 1, "DestinationDialogID": 2}]}
 ]}]}}"#;

#[test]
fn a_runaway_loop_stops_the_run_and_undo_takes_it_back() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::write(dir.path().join("ring.json"), RING).expect("written");
    let transcript = run_in(dir.path(), &["play", "ring.json"], &lines(&[":why", ":undo", ":quit"]));
    assert!(transcript.contains("refused (endless-loop)"), "{transcript}");
    assert!(transcript.contains("the run is stuck: the conversation was stopped as a possible loop"), "{transcript}");
    // The failing condition is told once, on standard error, with how often it failed.
    let (out, err) = transcript.split_once("--- stderr\n").expect("the standard error");
    assert_eq!(err.matches("warning: conversation 1 entry 2 (\"A\")").count(), 1, "{transcript}");
    assert!(!out.contains("conversation 1 entry 2"), "not in the transcript: {transcript}");
    assert!(transcript.contains(" times)"), "{transcript}");
    assert!(transcript.contains("(undone)\nMara: Round we go."), "{transcript}");
    assert!(transcript.ends_with("--- exit 0\n"), "{transcript}");
}

#[test]
fn a_lua_world_supplies_the_functions_the_project_calls() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-lighthouse.xml"]);
    let world = r#"
function query(key) if key == "player name" then return "Ada" end end
game = { currentScene = {} }
function game.currentScene:playCutscene(name) print("cutscene " .. name) end
"#;
    std::fs::write(dir.path().join("keeper.lua"), world).expect("written");
    let args = ["play", "the-lighthouse.xml", "--world", "keeper.lua", "--lua-memory", "4"];
    let input = lines(&["2", "3", "1", "1"]);
    let transcript = run_in(dir.path(), &args, &input);
    assert!(transcript.contains("cutscene beam"), "the game's function ran: {transcript}");
    assert!(!transcript.contains("'game'"), "{transcript}");
    assert!(transcript.contains("Old Mara: Somewhere, a ship turns for home."), "{transcript}");
    assert!(transcript.contains("— the end —\n") && transcript.ends_with("--- exit 0\n"), "{transcript}");
}

#[test]
fn start_begins_another_conversation_of_the_same_playthrough() {
    // At the menu, the conversation is started again from its root, then the ferry is taken.
    let transcript = run(&["play", CROSSING], &lines(&[":start The Crossing", "1"]));
    assert_eq!(transcript.matches("Ferryman: The river runs high tonight.").count(), 2, "{transcript}");
    assert!(transcript.contains("Ferryman: Hold the rail."), "{transcript}");
    assert!(transcript.ends_with("— the end —\n--- stderr\n--- exit 0\n"), "{transcript}");
}

#[test]
fn a_save_made_before_an_unrelated_edit_of_the_project_loads_after_it() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    copy(dir.path(), &["the-crossing.json"]);
    let saved = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":save s.json", ":quit"]));
    assert!(saved.contains("(saved to s.json)"), "{saved}");
    // The ferry's line, which the save never reached, is reworded.
    edit(&dir.path().join("the-crossing.json"), "Hold the rail.", "Hold the rail, and mind the rope.");
    let loaded = run_in(dir.path(), &["play", "the-crossing.json"], &lines(&[":load s.json", "1"]));
    assert!(loaded.contains("steps replayed against it, and play resumes there"), "{loaded}");
    assert!(loaded.contains("Ferryman: Hold the rail, and mind the rope."), "{loaded}");
    assert!(loaded.ends_with("--- exit 0\n"), "{loaded}");
}
