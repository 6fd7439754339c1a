//! The engine through its API: transcripts, snapshots and undo by replay, the log, the budget,
//! `observe`, the loader, and the offered-set helpers.

use serde_json::json;
use stagehand_chatmapper::{load, ChatMapperEngine, EngineError, EntryRef, Options, SimStatus};
use stagehand_lua::Value;
use stagehand_playbook::plain_text;
use stagehand_runner::{Answer, Answers, Command, OwnedEvent, RefusalReason};

fn example(name: &str) -> stagehand_chatmapper::Project {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

fn engine(name: &str) -> ChatMapperEngine {
    ChatMapperEngine::new(example(name), Options::default()).expect("an engine")
}

/// One event as a short line: `said Ferryman: text`, `offer [a | b]`, `ended`, `refused reason`.
fn show(events: &[OwnedEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event {
            OwnedEvent::Said { speaker, speech } => {
                format!("said {}: {}", speaker.as_deref().unwrap_or("-"), plain_text(speech))
            }
            OwnedEvent::Offer { options, .. } => format!(
                "offer [{}]",
                options.iter().map(|(label, _)| plain_text(label)).collect::<Vec<_>>().join(" | ")
            ),
            OwnedEvent::Resolve { questions } => {
                format!("resolve {:?}", questions.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>())
            }
            OwnedEvent::Ended => "ended".into(),
            OwnedEvent::Refused { reason, .. } => format!("refused {reason}"),
            other => format!("{other:?}"),
        })
        .collect()
}

fn send(engine: &mut ChatMapperEngine, command: Command<'_>) -> Vec<String> {
    show(&engine.send(command))
}

/// Plays from where the engine stands: `next` through lines, the given choices at menus, until
/// the end; the transcript.
fn play(engine: &mut ChatMapperEngine, mut choices: Vec<i64>, mut last: Vec<String>) -> Vec<String> {
    choices.reverse();
    let mut transcript = last.clone();
    for _ in 0..1000 {
        let command = match last.last().map(String::as_str) {
            Some("ended") | None => return transcript,
            Some(line) if line.starts_with("offer") => Command::Choose(choices.pop().expect("a choice to make")),
            Some(line) if line.starts_with("said") => Command::Next,
            Some(other) => panic!("unexpected {other}"),
        };
        last = send(engine, command);
        transcript.extend(last.iter().cloned());
    }
    panic!("the conversation did not end");
}

#[test]
fn the_crossing_plays_both_ways() {
    let mut taking = engine("the-crossing.json");
    let opened = send(&mut taking, Command::start());
    let transcript = play(&mut taking, vec![0], opened);
    assert_eq!(
        transcript,
        [
            "said Ferryman: The river runs high tonight.",
            "said Ferryman: The last ferry leaves at midnight, and the fare is a token.",
            "offer [I'll take the crossing. | I'll wait for morning.]",
            "said Traveller: I'll take the crossing. Here is my token.",
            "said Ferryman: Hold the rail. The far shore is closer than it looks.",
            "ended",
        ]
    );
    assert_eq!(taking.variable("has_token"), Value::Boolean(true));
    assert_eq!(taking.status(1, 4), Some(SimStatus::WasOffered));
    assert_eq!(taking.status(1, 0), Some(SimStatus::Untouched));
    assert!(taking.is_finished());

    let mut ashore = engine("the-crossing.xml");
    let opened = send(&mut ashore, Command::start_at("The Crossing"));
    let transcript = play(&mut ashore, vec![1], opened);
    assert_eq!(transcript[3], "said Traveller: I'll wait for morning.");
    assert_eq!(transcript[4], "said Ferryman: Suit yourself. The inn by the pier has a warm fire.");
    assert_eq!(ashore.variable("has_token"), Value::Boolean(false));
    assert_eq!(ashore.status(1, 5), Some(SimStatus::Untouched));
}

#[test]
fn a_snapshot_restores_for_undo_by_replay_and_survives_serde() {
    let mut engine = engine("the-crossing.json");
    send(&mut engine, Command::start());
    send(&mut engine, Command::Next);
    let at_menu = send(&mut engine, Command::Next);
    assert_eq!(at_menu, ["offer [I'll take the crossing. | I'll wait for morning.]"]);
    let saved = engine.snapshot().expect("a snapshot");
    let text = serde_json::to_string(&saved).expect("serializable");
    let saved: stagehand_chatmapper::Snapshot = serde_json::from_str(&text).expect("deserializable");

    let first = play(&mut engine, vec![0], at_menu.clone());
    assert_eq!(engine.variable("has_token"), Value::Boolean(true));
    engine.restore(&saved).expect("restored");
    assert_eq!(engine.variable("has_token"), Value::Boolean(false));
    assert_eq!(engine.status(1, 3), Some(SimStatus::WasOffered));
    assert!(!engine.is_finished());
    let second = play(&mut engine, vec![1], at_menu.clone());
    assert_ne!(first, second);
    engine.restore(&saved).expect("restored again");
    assert_eq!(play(&mut engine, vec![0], at_menu), first);
}

#[test]
fn restore_removes_globals_made_after_the_snapshot_and_keeps_the_rng() {
    let json = br#"{"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "UserScript": "made_later = {1, 2}; Variable[\"roll\"] = math.random(1000000)",
         "Fields": {"Title": "a", "Dialogue Text": "[var=roll]"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let mut engine = ChatMapperEngine::new(project, Options::seeded(9)).unwrap();
    let saved = engine.snapshot().unwrap();
    let first = send(&mut engine, Command::start());
    assert!(engine.snapshot().unwrap() != saved);
    engine.restore(&saved).unwrap();
    let again = send(&mut engine, Command::start());
    assert_eq!(first, again, "the same draw after a restore");
    engine.restore(&saved).unwrap();
    let names = serde_json::to_value(engine.snapshot().unwrap()).unwrap().to_string();
    assert!(!names.contains("made_later"), "{names}");
}

#[test]
fn a_snapshot_of_another_project_is_refused() {
    let mut crossing = engine("the-crossing.json");
    let mut lighthouse = engine("the-lighthouse.xml");
    let saved = lighthouse.snapshot().unwrap();
    assert!(matches!(crossing.restore(&saved), Err(EngineError::Mismatch(_))));
}

#[test]
fn the_budget_stops_endless_conditions_and_scripts_and_play_goes_on() {
    let json = br#"{"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "ConditionsString": "(function() while true do end end)()", "UserScript": "while true do end",
         "Fields": {"Title": "a", "Dialogue Text": "Still here."}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 2}]},
        {"ID": 2, "ConditionsString": "while true do end", "Fields": {"Title": "b", "Dialogue Text": "And here."}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let options =
        Options { limits: stagehand_lua::Limits { instructions: 100_000, ..Default::default() }, ..Default::default() };
    let mut engine = ChatMapperEngine::new(project, options).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said -: Still here."]);
    assert_eq!(send(&mut engine, Command::Next), ["said -: And here."]);
    assert_eq!(send(&mut engine, Command::Next), ["ended"]);
    let log = engine.take_log();
    assert!(log.iter().any(|l| l.contains("entry 1") && l.contains("condition") && l.contains("budget")), "{log:#?}");
    assert!(
        log.iter().any(|l| l.contains("entry 1") && l.contains("script failed") && l.contains("budget")),
        "{log:#?}"
    );
    assert!(log.iter().any(|l| l.contains("entry 2") && l.contains("syntax")), "{log:#?}");
    assert!(engine.take_log().is_empty(), "taking the log empties it");
}

#[test]
fn print_output_and_failures_are_logged() {
    let mut engine = engine("the-lighthouse.xml");
    send(&mut engine, Command::start());
    send(&mut engine, Command::Supply(Answers::new().with("player name", Answer::Text("Ada".into()))));
    let log = engine.take_log();
    // The boatman's conversation has a condition that is not an expression; it is compiled once
    // and logged only when evaluated, which this path has not done yet.
    assert!(log.iter().all(|l| !l.contains("conversation 2")), "{log:#?}");
}

#[test]
fn observe_reports_variables_and_every_status() {
    let mut engine = engine("the-crossing.json");
    send(&mut engine, Command::start());
    let observed = engine.observe();
    assert_eq!(observed["variables"], json!({"has_token": false}));
    assert_eq!(observed["simStatus"]["1"]["1"], json!("WasDisplayed"));
    assert_eq!(observed["simStatus"]["1"]["6"], json!("Untouched"));
    assert_eq!(observed["simStatus"]["1"].as_object().map(|o| o.len()), Some(7));
}

#[test]
fn offered_sets_and_conditions_can_be_asked_without_playing() {
    let mut engine = engine("the-crossing.json");
    let offered = engine.offered(1, 1).expect("entry 1 exists");
    assert_eq!(offered, [EntryRef { conversation: 1, entry: 3 }, EntryRef { conversation: 1, entry: 4 }]);
    assert_eq!(engine.offered(1, 3).unwrap(), []);
    assert_eq!(engine.condition_holds(1, 5), Some(false));
    assert_eq!(engine.condition_holds(1, 6), Some(true));
    assert_eq!(engine.offered(9, 9), None);
    assert_eq!(engine.status(1, 3), Some(SimStatus::Untouched), "asking marks nothing");
}

#[test]
fn start_finds_conversations_by_id_or_title_and_refuses_others() {
    let mut engine = engine("the-crossing.json");
    assert_eq!(send(&mut engine, Command::start_at("1"))[0], "said Ferryman: The river runs high tonight.");
    assert_eq!(send(&mut engine, Command::start_at("The Crossing"))[0], "said Ferryman: The river runs high tonight.");
    assert_eq!(send(&mut engine, Command::start_at("2")), ["refused no-such-anchor"]);
    assert_eq!(send(&mut engine, Command::start_at("the crossing")), ["refused no-such-anchor"]);
}

#[test]
fn every_refusal_leaves_the_run_where_it_was() {
    let mut engine = engine("the-crossing.json");
    assert_eq!(send(&mut engine, Command::Next), ["refused not-started"]);
    assert_eq!(send(&mut engine, Command::Choose(0)), ["refused misplaced"]);
    send(&mut engine, Command::start());
    assert_eq!(send(&mut engine, Command::Done), ["refused misplaced"]);
    assert_eq!(send(&mut engine, Command::failed("no")), ["refused misplaced"]);
    assert_eq!(send(&mut engine, Command::Supply(Answers::new())), ["refused misplaced"]);
    assert_eq!(
        send(&mut engine, Command::Next),
        ["said Ferryman: The last ferry leaves at midnight, and the fare is a token."]
    );
}

#[test]
fn the_runaway_guard_is_configurable() {
    let json = br#"{"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "Fields": {"Title": "a", "Dialogue Text": "Again."}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 1}]}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let mut engine =
        ChatMapperEngine::new(project, Options { max_automatic_advances: 3, ..Options::default() }).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said -: Again."]);
    assert_eq!(send(&mut engine, Command::Next), ["said -: Again."]);
    assert_eq!(send(&mut engine, Command::Next), ["said -: Again."]);
    let events = engine.send(Command::Next);
    match events.as_slice() {
        [OwnedEvent::Refused { reason: RefusalReason::EndlessLoop, explanation }] => {
            assert!(explanation.contains("loop") && explanation.contains("entry 1"), "{explanation}")
        }
        other => panic!("{other:?}"),
    }
    assert!(engine.is_finished());
    assert_eq!(send(&mut engine, Command::start())[0], "said -: Again.", "start begins again");
}

/// A conversation of one root and `count` lines in a chain, each with its own condition.
fn chain(count: i64, condition: impl Fn(i64) -> String) -> Vec<u8> {
    let link = |from: i64, to: i64| serde_json::json!({"OriginConvoID": 1, "OriginDialogID": from, "DestinationConvoID": 1, "DestinationDialogID": to});
    let mut nodes = vec![json!({"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [link(0, 1)]})];
    for id in 1..=count {
        let links = if id < count { vec![link(id, id + 1)] } else { Vec::new() };
        nodes.push(json!({"ID": id, "Fields": {"Dialogue Text": format!("Line {id}.")}, "OutgoingLinks": links,
                          "ConditionsString": condition(id)}));
    }
    let project = json!({"Title": "chain", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": nodes}]}});
    serde_json::to_vec(&project).unwrap()
}

#[test]
fn a_project_may_have_more_chunks_than_lua_has_references() {
    let project = load(&chain(9_000, |id| format!("Variable[\"x\"] ~= {id}")), "big.json").unwrap();
    let mut engine = ChatMapperEngine::new(project, Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said -: Line 1."]);
    for id in 2..=9_000 {
        assert_eq!(send(&mut engine, Command::Next), [format!("said -: Line {id}.")]);
    }
    assert_eq!(send(&mut engine, Command::Next), ["ended"]);
}

#[test]
fn conditions_keep_lua_truthiness_comments_and_line_numbers() {
    let conditions = [
        "Variable[\"x\"] == nil -- a trailing comment",
        "print(\"no value\")",
        "0",
        "nil",
        "\n\nerror(\"third line\")",
    ];
    let project = load(&chain(5, |id| conditions[id as usize - 1].to_owned()), "c.json").unwrap();
    let mut engine = ChatMapperEngine::new(project, Options::default()).unwrap();
    assert_eq!(engine.condition_holds(1, 1), Some(true), "a comment ends the condition's line");
    assert_eq!(engine.condition_holds(1, 2), Some(true), "no value at all is true");
    assert_eq!(engine.condition_holds(1, 3), Some(true), "0 is true in Lua");
    assert_eq!(engine.condition_holds(1, 4), Some(false));
    let _ = engine.take_log();
    assert_eq!(engine.condition_holds(1, 5), Some(true), "an error counts as true");
    let log = engine.take_log();
    assert!(log.iter().any(|l| l.contains(":3: third line")), "Lua's line numbers are the source's: {log:#?}");
    assert!(log.iter().all(|l| !l.contains("no value") || l.starts_with("print: ")), "{log:#?}");
}

#[test]
fn the_log_is_bounded_between_takes() {
    let project = load(&chain(1, |_| "game.isNight()".to_owned()), "c.json").unwrap();
    let mut engine = ChatMapperEngine::new(project, Options::default()).unwrap();
    for _ in 0..stagehand_chatmapper::MAX_LOG_LINES + 5 {
        assert_eq!(engine.condition_holds(1, 1), Some(true));
    }
    let log = engine.take_log();
    assert_eq!(log.len(), stagehand_chatmapper::MAX_LOG_LINES + 1);
    assert!(log[log.len() - 1].starts_with("5 more lines were dropped"), "{}", log[log.len() - 1]);
    assert!(engine.take_log().is_empty());
}

#[test]
fn a_script_cannot_close_its_chunk_and_run_code_when_the_engine_is_built() {
    let json = br#"{"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "UserScript": "end Variable['x'] = 99 function _f()",
         "ConditionsString": "true end Variable['y'] = 98 function _g() return true",
         "Fields": {"Title": "a", "Dialogue Text": "Hello."}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let mut engine = ChatMapperEngine::new(project, Options::default()).unwrap();
    assert_eq!(engine.variable("x"), Value::Nil, "the script ran outside its chunk while the engine was built");
    assert_eq!(engine.variable("y"), Value::Nil, "the condition ran outside its chunk while the engine was built");
    assert_eq!(send(&mut engine, Command::start()), ["said -: Hello."]);
    assert_eq!(engine.variable("x"), Value::Nil, "entering the entry ran the escaped code");
    let log = engine.take_log();
    assert!(log.iter().any(|l| l.contains("entry 1") && l.contains("script does not compile")), "{log:#?}");
    assert!(log.iter().any(|l| l.contains("entry 1") && l.contains("condition cannot be evaluated")), "{log:#?}");
}

#[test]
fn a_status_written_on_a_missing_asset_fails_at_the_scripts_line_and_is_kept_nowhere() {
    // M37: Actor["Ghost"] is nil; writing a status or relationship on it is an argument error
    // that points at the script, and nothing is stored that another missing asset could read.
    let path = format!(
        "{}/../../conformance/chatmapper/a-missing-asset-has-no-status-and-shares-none/project.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let project = load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"));
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    send(&mut engine, Command::start());
    send(&mut engine, Command::Next);
    let said = send(&mut engine, Command::Next);
    assert_eq!(said, ["said Kick Hart: Phantom: [], fear 0; Kick Hart: [Friends]."]);
    let log = engine.take_log();
    assert!(
        log.iter().any(|l| l.contains("script:1: bad argument #1 to 'SetStatus' (an asset expected, got nil)")),
        "{log:#?}"
    );
    assert!(
        log.iter().any(|l| l.contains("script:1: bad argument #1 to 'IncRelationship' (an asset expected, got nil)")),
        "{log:#?}"
    );
    assert_eq!(engine.observe()["variables"], json!({"status": "", "fear": 0.0, "kick": "Friends"}));
}

#[test]
fn a_status_set_to_false_reads_back_false() {
    // Statuses hold any value; only an unset one (or one with no asset, M37) reads as "".
    let json = r#"{"Assets": {
        "Actors": [{"ID": 1, "Fields": {"Name": "Player"}}, {"ID": 2, "Fields": {"Name": "Kick Hart"}}],
        "Conversations": [{"ID": 1, "DialogNodes": [
            {"ID": 0, "IsRoot": true, "OutgoingLinks": [{"DestinationDialogID": 1}]},
            {"ID": 1, "Fields": {"Actor": "2", "Dialogue Text": "[var=out]"},
             "UserScript": "SetStatus(Actor['Player'], Actor['Kick_Hart'], false); Variable['out'] = tostring(GetStatus(Actor['Player'], Actor['Kick_Hart'])) .. '|' .. tostring(GetStatus(Actor['Player'], Actor['Nobody']))"}]}]}}"#;
    let project = load(json.as_bytes(), "status.json").unwrap_or_else(|e| panic!("{e}"));
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    assert_eq!(send(&mut engine, Command::start()), ["said Kick Hart: false|"]);
}

#[test]
fn a_variable_holding_a_table_or_function_shows_its_type_alone_and_replays_exactly() {
    let script = "Variable[\"bag\"] = {1, 2}; Variable[\"fn\"] = function() end; Variable[\"n\"] = 5";
    let nodes = json!([
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "UserScript": script,
         "OutgoingLinks": [{"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "Fields": {"Dialogue Text": "[var=bag] [var=fn] [var=n] [var=none]"}, "OutgoingLinks": []}
    ]);
    let project =
        json!({"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": nodes}]}});
    let bytes = serde_json::to_vec(&project).unwrap();
    let transcript = || {
        let mut engine = ChatMapperEngine::new(load(&bytes, "t.json").unwrap(), Options::default()).unwrap();
        let first = send(&mut engine, Command::start());
        play(&mut engine, Vec::new(), first)
    };
    let first = transcript();
    assert_eq!(first, ["said -: table function 5 nil", "ended"]);
    assert_eq!(first, transcript(), "two runs of one project read the same");
}
