//! `check`: each kind of finding, naming the conversation and entry it concerns.

use stagehand_chatmapper::check::{check, Finding, FindingKind};
use stagehand_chatmapper::load;

#[test]
fn every_kind_of_finding_is_reported_where_it_is() {
    let json = br#"{"Title": "t", "UserScript": "Variable[\"set_by_project\"] = 1; function f() end",
      "Assets": {"UserVariables": [{"Fields": {"Name": "declared one", "Initial Value": "1"}}],
      "Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1},
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 9},
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 7, "DestinationDialogID": 0}]},
        {"ID": 1, "ConditionsString": "Variable[\"declared_one\"] == 1 and Variable.ghost and Variable['set_by_project']",
         "UserScript": "Variable[\"written\"] = Variable[\"written\"] or 2",
         "Fields": {"Title": "a", "Dialogue Text": "[var=phantom] [var=written]"}},
        {"ID": 2, "ConditionsString": "x = 5", "UserScript": "if then",
         "Fields": {"Title": "orphan"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let findings = check(&project);
    let at = |entry: i64| -> Vec<&FindingKind> {
        findings.iter().filter(|f| f.entry == Some(entry)).map(|f| &f.kind).collect()
    };
    assert_eq!(
        at(0),
        [
            &FindingKind::MissingEntry { conversation: 1, entry: 9 },
            &FindingKind::MissingConversation { conversation: 7 }
        ]
    );
    assert_eq!(
        at(1),
        [
            &FindingKind::UndeclaredVariable { name: "ghost".into() },
            &FindingKind::UndeclaredVariable { name: "phantom".into() }
        ]
    );
    let orphan = at(2);
    assert_eq!(orphan.len(), 3, "{orphan:?}");
    assert_eq!(orphan[0], &FindingKind::Unreachable);
    assert!(matches!(orphan[1], FindingKind::ConditionDoesNotCompile { .. }));
    assert!(matches!(orphan[2], FindingKind::ScriptDoesNotCompile { .. }));
    assert!(findings.iter().all(|f| f.conversation == Some(1)));
    let shown = findings.iter().map(Finding::to_string).collect::<Vec<_>>().join("\n");
    assert!(shown.contains("conversation 1, entry 2: no START entry reaches this entry"), "{shown}");
    assert!(shown.contains("conversation 1, entry 0: a link leads to conversation 7, which does not exist"), "{shown}");
}

#[test]
fn the_worked_example_is_clean() {
    let path = format!("{}/../../examples/the-crossing.json", env!("CARGO_MANIFEST_DIR"));
    let project = load(&std::fs::read(&path).unwrap(), &path).unwrap();
    assert_eq!(check(&project), []);
}

#[test]
fn a_project_script_that_does_not_compile_is_reported_without_an_entry() {
    let project = load(br#"{"Title": "t", "UserScript": "function (", "Assets": {}}"#, "t.json").unwrap();
    let findings = check(&project);
    assert_eq!(findings.len(), 1);
    assert_eq!((findings[0].conversation, findings[0].entry), (None, None));
    assert!(findings[0].to_string().starts_with("project script: the script does not compile"), "{}", findings[0]);
}

#[test]
fn duplicate_ids_are_reported_at_the_entries_and_conversations_links_cannot_reach() {
    // Links name an entry by (conversation ID, entry ID) and reach the first of a kind; a second
    // entry (or conversation) with the same ID is silently out of reach, and shares the first's
    // SimStatus and Lua tables.
    let json = br#"{"Assets": {"Conversations": [
        {"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
          {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
            {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
          {"ID": 1, "Fields": {"Title": "first"}},
          {"ID": 1, "Fields": {"Title": "second"}}]},
        {"ID": 1, "Fields": {"Title": "again"}, "DialogNodes": [
          {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let findings = check(&project);
    let duplicates: Vec<String> = findings
        .iter()
        .filter(|f| matches!(f.kind, FindingKind::DuplicateEntry | FindingKind::DuplicateConversation))
        .map(Finding::to_string)
        .collect();
    assert_eq!(duplicates.len(), 2, "{findings:?}");
    assert!(
        duplicates[0].starts_with("conversation 1, entry 1: another entry of this conversation has ID 1"),
        "{duplicates:?}"
    );
    assert!(duplicates[1].starts_with("conversation 1: another conversation has ID 1"), "{duplicates:?}");
}

#[test]
fn markup_in_another_case_is_reported_as_text_that_will_be_shown() {
    // M28: tokens are matched in lower case, so `[VAR=gold]` or `[EM1]` is shown as written;
    // check says so. A single letter (`[A] Attack`) is a writer's own text and is left alone.
    let json = br#"{"Title": "t", "Assets": {"UserVariables": [{"Fields": {"Name": "Gold", "Initial Value": "1"}}],
      "Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "Fields": {"Title": "a", "Menu Text": "[A] Attack [F]",
         "Dialogue Text": "You have [VAR=Gold] [Em1]gold[/EM1] [var=Gold] [Location Change] [PIC=2]"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let findings = check(&project);
    let kinds: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
    let written = |w: &str, m: &str| FindingKind::MarkupInAnotherCase { written: w.into(), meant: m.into() };
    assert_eq!(
        kinds,
        [
            &written("[VAR=Gold]", "[var=Gold]"),
            &written("[Em1]", "[em1]"),
            &written("[/EM1]", "[/em1]"),
            &written("[PIC=2]", "[pic=2]")
        ]
    );
    let shown = findings[0].to_string();
    assert!(shown.starts_with("conversation 1, entry 1: "), "{shown}");
    assert!(shown.contains("write [var=Gold] if") && shown.contains("lower case"), "{shown}");
}

#[test]
fn a_variable_an_input_prompt_stores_is_declared() {
    // The page: a prompt "store[s] the answer in Name", so `[?player name]` assigns
    // Variable["player_name"], and a later read of it is no undeclared variable.
    let json = br#"{"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "Fields": {"Title": "ask", "Dialogue Text": "Name? [?player name] Age? [var=?age]"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 1, "DestinationConvoID": 1, "DestinationDialogID": 2}]},
        {"ID": 2, "ConditionsString": "Variable[\"player_name\"] ~= \"\" and Variable.age",
         "Fields": {"Title": "greet", "Dialogue Text": "Hello, [var=player name], [var=age]. [var=unasked]"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let kinds: Vec<FindingKind> = check(&project).into_iter().map(|f| f.kind).collect();
    assert_eq!(kinds, [FindingKind::UndeclaredVariable { name: "unasked".into() }]);
}

#[test]
fn a_prompt_in_menu_text_is_reported_as_never_asked() {
    // M33: a label cannot ask, so `[?Name]` in Menu Text is stripped from the label and never
    // asked; check says where, and that Dialogue Text is where a prompt asks.
    let json = br#"{"Title": "t", "Assets": {"Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [
          {"OriginConvoID": 1, "OriginDialogID": 0, "DestinationConvoID": 1, "DestinationDialogID": 1}]},
        {"ID": 1, "Fields": {"Title": "a", "Menu Text": "[f]Name [?who] and [var=?age][?who]",
         "Dialogue Text": "[?asked]"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let findings = check(&project);
    let kinds: Vec<&FindingKind> = findings.iter().map(|f| &f.kind).collect();
    let prompt = |name: &str| FindingKind::PromptInMenuText { name: name.into() };
    assert_eq!(kinds, [&prompt("who"), &prompt("age")]);
    let shown = findings[0].to_string();
    assert!(shown.starts_with("conversation 1, entry 1: "), "{shown}");
    assert!(shown.contains("never asked") && shown.contains("Dialogue Text"), "{shown}");
}

#[test]
fn an_asset_key_no_asset_has_is_reported_with_the_key_its_name_makes() {
    // M38: Actor["Ghost"] is nil in play (and a status written on it fails, M37); a key written
    // with the name's space instead of `_` is the usual slip, so the finding names the key.
    let json = br#"{"Title": "t", "Assets": {
      "Actors": [{"ID": 1, "Fields": {"Name": "Kick Hart"}}],
      "Items": [{"ID": 2, "Fields": {"Name": "Brass Key"}}],
      "Locations": [{"ID": 3, "Fields": {"Name": "Dock"}}],
      "Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [{"DestinationDialogID": 1}],
         "UserScript": "Item[\"Lamp\"] = {Name = \"Lamp\"}"},
        {"ID": 1, "ConditionsString": "Actor[\"Kick_Hart\"].Age and Location.Dock and Item['Lamp'] and MyActor[\"x\"] and t.Actor[\"y\"]",
         "UserScript": "SetStatus(Actor[\"Kick Hart\"], Item[\"Brass_Key\"], 'x'); SetStatus(Actor.Ghost, Location[\"Pier\"], 'y')",
         "Fields": {"Title": "a"}}]}]}}"#;
    let project = load(json, "t.json").unwrap();
    let kinds: Vec<FindingKind> =
        check(&project).into_iter().map(|f| f.kind).filter(|k| matches!(k, FindingKind::UnknownAsset { .. })).collect();
    let unknown = |table: &str, name: &str, meant: Option<&str>| FindingKind::UnknownAsset {
        table: table.into(),
        name: name.into(),
        meant: meant.map(str::to_owned),
    };
    assert_eq!(
        kinds,
        [
            unknown("Actor", "Kick Hart", Some("Kick_Hart")),
            unknown("Actor", "Ghost", None),
            unknown("Location", "Pier", None)
        ]
    );
    let shown = check(&project).iter().map(Finding::to_string).collect::<Vec<_>>().join("\n");
    assert!(
        shown.contains(
            "conversation 1, entry 1: reads Actor[\"Kick Hart\"], which is no actor of the project (the key of the \
             one named \"Kick Hart\" is Kick_Hart)"
        ),
        "{shown}"
    );
    assert!(
        shown.contains("reads Actor[\"Ghost\"], which is no actor of the project and no script assigns, so it is nil"),
        "{shown}"
    );
}
