//! Host functions: functions and tables the game defines (`game.*`, `Quest[...]`), supplied as a
//! world Lua chunk, are visible to the project's conditions and scripts in the same sandbox; and
//! `check` names the globals a script reads that nothing defines.

use serde_json::json;
use stagehand_chatmapper::check::{check, FindingKind};
use stagehand_chatmapper::{load, ChatMapperEngine, Options, Project};
use stagehand_playbook::plain_text;
use stagehand_runner::{Command, OwnedEvent};

/// A quest line: the root plays "You have the key." only when `game.has_item("key")`, its script
/// moves the quest on, and the next line needs the quest's new stage.
fn quest() -> Project {
    let entry = |id: i64, text: &str, condition: &str, script: &str, links: &[i64]| {
        let links: Vec<_> = links
            .iter()
            .map(|to| json!({"OriginConvoID": 1, "DestinationConvoID": 1, "OriginDialogID": id, "DestinationDialogID": to}))
            .collect();
        json!({"ID": id, "IsRoot": id == 0, "ConditionsString": condition, "UserScript": script, "OutgoingLinks": links,
               "Fields": {"Title": if id == 0 { "START" } else { "line" }, "Actor": "1", "Dialogue Text": text}})
    };
    let project = json!({"Title": "Quest", "UserScript": "Greeting = \"hello\"\nfunction shout(s) return string.upper(s) end",
        "Assets": {"Actors": [{"ID": 1, "Fields": {"Name": "Guide"}}], "Conversations": [
            {"ID": 1, "Fields": {"Title": "Quest"}, "DialogNodes": [
                entry(0, "", "", "", &[1, 2]),
                entry(1, "You have the key.", "game.has_item(\"key\")", "Quest[\"main\"].stage = 2", &[3]),
                entry(2, "No key.", "not game.has_item(\"key\")", "", &[]),
                entry(3, "Stage two.", "Quest.main.stage == 2 and shout(Greeting) == \"HELLO\"", "local seen = true; Tally = (Tally or 0) + 1", &[])]}]}});
    load(project.to_string().as_bytes(), "quest.json").expect("it loads")
}

const WORLD: &str = r#"
game = { items = { key = true } }
function game.has_item(name) return game.items[name] == true end
Quest = { main = { stage = 1 } }
"#;

fn said(events: &[OwnedEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::Said { speech, .. } => Some(plain_text(speech)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_world_chunk_defines_what_conditions_and_scripts_call() {
    let mut engine =
        ChatMapperEngine::with_world(quest(), Options::default(), "quest.world.lua", WORLD).expect("the world loads");
    assert_eq!(said(&engine.send(Command::start())), ["You have the key."]);
    assert_eq!(said(&engine.send(Command::Next)), ["Stage two."], "the script moved the world's quest on");
    assert_eq!(engine.take_log(), Vec::<String>::new(), "nothing failed");

    let saved = engine.snapshot().expect("it saves");
    engine.restore(&saved).expect("the world's tables and functions survive a restore");
    assert!(engine.condition_holds(1, 1).expect("entry 1"), "game.has_item is still there");
}

#[test]
fn without_the_world_the_calls_fail_and_say_so() {
    let mut engine = ChatMapperEngine::new(quest(), Options::default()).expect("made");
    engine.send(Command::start());
    let log = engine.take_log().join("\n");
    assert!(log.contains("game"), "{log}");
}

#[test]
fn a_world_that_does_not_load_is_an_error_naming_it() {
    let error =
        ChatMapperEngine::with_world(quest(), Options::default(), "broken.world.lua", "game = {").expect_err("refused");
    assert!(error.to_string().contains("broken.world.lua"), "{error}");
}

#[test]
fn check_names_globals_that_nothing_defines() {
    let undefined: Vec<(Option<i64>, String)> = check(&quest())
        .into_iter()
        .filter_map(|f| match f.kind {
            FindingKind::UndefinedGlobal { name } => Some((f.entry, name)),
            _ => None,
        })
        .collect();
    let expected = [(Some(1), "game"), (Some(1), "Quest"), (Some(2), "game"), (Some(3), "Quest")];
    assert_eq!(undefined, expected.map(|(e, n)| (e, n.to_owned())), "shout, Greeting, Tally, seen, string are defined");
}

#[test]
fn a_restored_playthrough_does_not_print_what_the_project_script_printed_at_the_start() {
    let project = json!({"Title": "Hello", "UserScript": "print(\"the project script ran\")",
        "Assets": {"Actors": [{"ID": 1, "Fields": {"Name": "Guide"}}], "Conversations": [
            {"ID": 1, "Fields": {"Title": "Hello"}, "DialogNodes": [
                {"ID": 0, "IsRoot": true, "Fields": {"Title": "START", "Actor": "1"},
                 "OutgoingLinks": [{"OriginConvoID": 1, "DestinationConvoID": 1, "OriginDialogID": 0, "DestinationDialogID": 1}]},
                {"ID": 1, "Fields": {"Title": "line", "Actor": "1", "Dialogue Text": "Hello."}, "OutgoingLinks": []}]}]}});
    let project = load(project.to_string().as_bytes(), "hello.json").expect("it loads");
    let mut first = ChatMapperEngine::new(project.clone(), Options::default()).expect("made");
    assert_eq!(said(&first.send(Command::start())), ["Hello."]);
    assert_eq!(first.take_log(), ["print: the project script ran"], "said once, as the playthrough began");
    let saved = first.snapshot().expect("it saves");
    let mut restored = ChatMapperEngine::new(project, Options::default()).expect("made");
    restored.restore(&saved).expect("it restores");
    assert_eq!(restored.take_log(), Vec::<String>::new(), "not said again by a restore");
}
