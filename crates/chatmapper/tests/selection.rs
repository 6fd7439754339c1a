//! Choosing what plays next, where real exports found the engine wrong (issue 11): a link into
//! another conversation's root, a ring of groups, player lines without Menu Text (and the option
//! that makes them choices), the candidates a menu closed, CRLF text, and log lines that name the
//! entry; and questions the page leaves open, settled in docs/design/chatmapper.md (M22, M23,
//! M25): Menu Text of only whitespace, a link past another conversation's root, the priority
//! group of an entry reached only by connectors, and the speaker of a nameless actor.

use serde_json::{json, Value as Json};
use stagehand_chatmapper::check::{check, FindingKind};
use stagehand_chatmapper::{load, ChatMapperEngine, EntryRef, Options};
use stagehand_playbook::plain_text;
use stagehand_runner::{Command, OwnedEvent, RefusalReason};

/// A dialog node of conversation `c`: `fields` as given, links to `(conversation, entry)` pairs,
/// and any other properties in `extra` (`IsGroup`, `ConditionsString`, ...).
fn node(c: i64, id: i64, fields: Json, links: &[(i64, i64)], extra: Json) -> Json {
    let links: Vec<Json> = links
        .iter()
        .map(|&(to_c, to)| {
            json!({"OriginConvoID": c, "OriginDialogID": id, "DestinationConvoID": to_c, "DestinationDialogID": to})
        })
        .collect();
    let mut node = json!({"ID": id, "IsRoot": id == 0, "Fields": fields, "OutgoingLinks": links});
    if let (Some(node), Some(extra)) = (node.as_object_mut(), extra.as_object()) {
        node.extend(extra.clone());
    }
    node
}

/// A project of a player (actor 1) and a keeper (actor 2), with these conversations
/// (`(ID, nodes)`).
fn project(conversations: Vec<(i64, Vec<Json>)>) -> stagehand_chatmapper::Project {
    let conversations: Vec<Json> = conversations
        .into_iter()
        .map(|(id, nodes)| json!({"ID": id, "Fields": {"Title": format!("c{id}")}, "DialogNodes": nodes}))
        .collect();
    let document = json!({"Title": "t", "Assets": {
        "Actors": [{"ID": 1, "Fields": {"Name": "Player", "IsPlayer": "True"}},
                   {"ID": 2, "Fields": {"Name": "Keeper", "IsPlayer": "False"}}],
        "Conversations": conversations}});
    load(document.to_string().as_bytes(), "t.json").expect("the project loads")
}

fn line(actor: i64, text: &str) -> Json {
    json!({"Title": text, "Actor": actor.to_string(), "Dialogue Text": text})
}

/// A player choice: Menu Text and Dialogue Text.
fn choice(menu: &str, text: &str) -> Json {
    json!({"Title": text, "Actor": "1", "Menu Text": menu, "Dialogue Text": text})
}

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
            OwnedEvent::Ended => "ended".into(),
            OwnedEvent::Refused { reason, .. } => format!("refused {reason}"),
            other => format!("{other:?}"),
        })
        .collect()
}

fn send(engine: &mut ChatMapperEngine, command: Command<'_>) -> Vec<String> {
    show(&engine.send(command))
}

#[test]
fn a_link_into_a_root_whose_condition_is_false_drops_that_candidate() {
    // Real exports mark START entries Passthrough; a root's condition still closes its
    // conversation (decision M9).
    let guarded = |condition: &str| {
        project(vec![
            (
                1,
                vec![
                    node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
                    node(1, 1, line(2, "Hello."), &[(2, 0), (1, 2)], json!({})),
                    node(1, 2, line(2, "Fallback."), &[], json!({})),
                ],
            ),
            (
                2,
                vec![
                    node(
                        2,
                        0,
                        json!({"Title": "START"}),
                        &[(2, 1)],
                        json!({"ConditionsString": condition, "FalseConditionAction": 1}),
                    ),
                    node(2, 1, line(2, "The other room."), &[], json!({})),
                ],
            ),
        ])
    };
    let mut closed = ChatMapperEngine::new(guarded("false"), Options::default()).unwrap();
    assert_eq!(send(&mut closed, Command::start()), ["said Keeper: Hello."]);
    assert_eq!(send(&mut closed, Command::Next), ["said Keeper: Fallback."]);
    assert_eq!(send(&mut closed, Command::Next), ["ended"]);

    let mut open = ChatMapperEngine::new(guarded("true"), Options::default()).unwrap();
    send(&mut open, Command::start());
    assert_eq!(send(&mut open, Command::Next), ["said Keeper: The other room."]);
}

#[test]
fn a_ring_of_groups_is_refused_as_a_possible_loop() {
    let ring = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "Hello."), &[(1, 2)], json!({})),
            node(1, 2, json!({"Title": "outer"}), &[(1, 3)], json!({"IsGroup": true})),
            node(1, 3, json!({"Title": "inner"}), &[(1, 2), (1, 4)], json!({"IsGroup": true})),
            node(1, 4, line(2, "Inside."), &[], json!({})),
        ],
    )]);
    let mut engine = ChatMapperEngine::new(ring.clone(), Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said Keeper: Hello."]);
    let events = engine.send(Command::Next);
    let [OwnedEvent::Refused { reason: RefusalReason::EndlessLoop, explanation }] = &events[..] else {
        panic!("a refusal, not {events:?}");
    };
    assert!(explanation.contains("ring of groups"), "{explanation}");
    assert!(explanation.contains("entry 2") && explanation.contains("entry 3"), "{explanation}");
    assert!(engine.is_finished());

    let findings = check(&ring);
    let rings: Vec<_> =
        findings.iter().filter(|f| matches!(f.kind, FindingKind::GroupRing { .. })).map(|f| f.to_string()).collect();
    assert_eq!(rings.len(), 1, "{findings:?}");
    assert!(rings[0].contains("entry 2") && rings[0].contains("entry 3"), "{}", rings[0]);
}

#[test]
fn a_group_reached_twice_without_a_ring_is_not_a_loop() {
    let diamond = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "Hello."), &[(1, 2), (1, 3)], json!({})),
            node(1, 2, json!({"Title": "a"}), &[(1, 4)], json!({"IsGroup": true})),
            node(1, 3, json!({"Title": "b"}), &[(1, 4)], json!({"IsGroup": true})),
            node(1, 4, json!({"Title": "shared"}), &[(1, 5)], json!({"IsGroup": true})),
            node(1, 5, line(2, "Shared."), &[], json!({})),
        ],
    )]);
    assert!(check(&diamond).iter().all(|f| !matches!(f.kind, FindingKind::GroupRing { .. })));
    let mut engine = ChatMapperEngine::new(diamond, Options::default()).unwrap();
    send(&mut engine, Command::start());
    assert_eq!(send(&mut engine, Command::Next), ["said Keeper: Shared."]);
}

/// The keeper asks; the player answers with lines that have Dialogue Text and no Menu Text.
fn player_lines() -> stagehand_chatmapper::Project {
    project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "Who goes there?"), &[(1, 2), (1, 3)], json!({})),
            node(1, 2, line(1, "A friend."), &[(1, 4)], json!({})),
            node(1, 3, line(1, "Nobody."), &[(1, 5)], json!({})),
            node(1, 4, line(2, "Welcome."), &[(1, 6)], json!({})),
            node(1, 5, line(2, "Begone."), &[], json!({})),
            node(1, 6, line(1, "Thank you."), &[], json!({})),
        ],
    )])
}

#[test]
fn player_lines_without_menu_text_play_as_lines_by_default() {
    let mut engine = ChatMapperEngine::new(player_lines(), Options::default()).unwrap();
    assert!(!engine.options().player_lines_as_choices);
    send(&mut engine, Command::start());
    assert_eq!(send(&mut engine, Command::Next), ["said Player: A friend."]);
}

#[test]
fn player_lines_as_choices_makes_them_a_menu_labelled_by_dialogue_text() {
    let options = Options { player_lines_as_choices: true, ..Options::default() };
    let mut engine = ChatMapperEngine::new(player_lines(), options).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said Keeper: Who goes there?"]);
    assert_eq!(send(&mut engine, Command::Next), ["offer [A friend. | Nobody.]"]);
    assert_eq!(send(&mut engine, Command::Choose(0)), ["said Player: A friend."]);
    assert_eq!(send(&mut engine, Command::Next), ["said Keeper: Welcome."]);
    // A single player line is a single choice: it plays straight through.
    assert_eq!(send(&mut engine, Command::Next), ["said Player: Thank you."]);
    assert_eq!(send(&mut engine, Command::Next), ["ended"]);
}

#[test]
fn check_warns_of_player_lines_without_menu_text_at_a_branch_naming_the_option() {
    let findings = check(&player_lines());
    let flagged: Vec<_> = findings
        .iter()
        .filter(|f| matches!(f.kind, FindingKind::PlayerLineWithoutMenuText))
        .map(|f| (f.entry, f.to_string()))
        .collect();
    assert_eq!(flagged.iter().map(|(e, _)| *e).collect::<Vec<_>>(), [Some(2), Some(3)], "{findings:?}");
    assert!(flagged[0].1.contains("--player-lines-as-choices"), "{}", flagged[0].1);
}

#[test]
fn the_candidates_a_menu_closed_by_their_conditions_are_known() {
    let menu = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "Which way?"), &[(1, 2), (1, 3), (1, 4)], json!({})),
            node(1, 2, json!({"Title": "door", "Menu Text": "The door."}), &[], json!({})),
            node(1, 3, json!({"Title": "gate", "Menu Text": "The gate."}), &[], json!({"ConditionsString": "false"})),
            node(1, 4, json!({"Title": "wall", "Menu Text": "The wall."}), &[], json!({})),
        ],
    )]);
    let mut engine = ChatMapperEngine::new(menu, Options::default()).unwrap();
    send(&mut engine, Command::start());
    assert!(engine.closed().is_empty(), "nothing was closed on the way to the first line");
    assert_eq!(send(&mut engine, Command::Next), ["offer [The door. | The wall.]"]);
    assert_eq!(engine.closed(), [EntryRef { conversation: 1, entry: 3 }]);
}

#[test]
fn carriage_returns_from_crlf_text_are_not_said() {
    let crlf = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "One\r\ntwo\rthree|four\r\n"), &[(1, 2), (1, 3)], json!({})),
            node(1, 2, json!({"Title": "a", "Menu Text": "Up\r\nthe hill"}), &[], json!({})),
            node(1, 3, json!({"Title": "b", "Menu Text": "Down"}), &[], json!({})),
        ],
    )]);
    let mut engine = ChatMapperEngine::new(crlf, Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said Keeper: One\ntwo\nthree"]);
    assert_eq!(send(&mut engine, Command::Next), ["said Keeper: four"]);
    assert_eq!(send(&mut engine, Command::Next), ["offer [Up\nthe hill | Down]"]);
}

#[test]
fn a_failing_script_or_condition_is_logged_under_its_own_entry() {
    let failing = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "First."), &[(1, 2)], json!({"UserScript": "nothing_here()"})),
            node(
                1,
                2,
                line(2, "Second."),
                &[],
                json!({"UserScript": "nothing_here()", "ConditionsString": "nothing_here()"}),
            ),
        ],
    )]);
    let mut engine = ChatMapperEngine::new(failing, Options::default()).unwrap();
    send(&mut engine, Command::start());
    engine.take_log();
    send(&mut engine, Command::Next);
    let log = engine.take_log();
    assert_eq!(log.len(), 2, "{log:#?}");
    for line in &log {
        assert!(!line.contains("__stagehand"), "{line}");
        assert!(line.contains("entry 2") && !line.contains("entry 1"), "{line}");
    }
}

#[test]
fn a_ring_of_false_passthrough_entries_is_refused_as_a_possible_loop() {
    // Each false Passthrough entry puts its children in its place, and each is the other's
    // child: the offered set never closes (M18).
    let closed = json!({"ConditionsString": "false", "FalseConditionAction": 1});
    let ring = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "Hello."), &[(1, 2)], json!({})),
            node(1, 2, line(2, "First."), &[(1, 3)], closed.clone()),
            node(1, 3, line(2, "Second."), &[(1, 2)], closed.clone()),
        ],
    )]);
    let mut engine = ChatMapperEngine::new(ring.clone(), Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said Keeper: Hello."]);
    let events = engine.send(Command::Next);
    let [OwnedEvent::Refused { reason: RefusalReason::EndlessLoop, explanation }] = &events[..] else {
        panic!("a refusal, not {events:?}");
    };
    assert!(explanation.contains("ring of Passthrough entries"), "{explanation}");
    assert!(explanation.contains("entry 2") && explanation.contains("entry 3"), "{explanation}");
    assert!(engine.is_finished());

    let findings = check(&ring);
    let rings: Vec<_> = findings
        .iter()
        .filter(|f| matches!(f.kind, FindingKind::PassthroughRing { .. }))
        .map(|f| f.to_string())
        .collect();
    assert_eq!(rings.len(), 1, "{findings:?}");
    assert!(rings[0].contains("entry 2") && rings[0].contains("entry 3"), "{}", rings[0]);
}

#[test]
fn passthrough_entries_sharing_a_child_are_not_a_ring() {
    let closed = json!({"ConditionsString": "false", "FalseConditionAction": 1});
    let diamond = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
            node(1, 1, line(2, "Hello."), &[(1, 2), (1, 3)], json!({})),
            node(1, 2, line(2, "A."), &[(1, 4)], closed.clone()),
            node(1, 3, line(2, "B."), &[(1, 4)], closed.clone()),
            node(1, 4, line(2, "Shared."), &[(1, 1)], json!({})),
        ],
    )]);
    assert!(check(&diamond).iter().all(|f| !matches!(f.kind, FindingKind::PassthroughRing { .. })));
    let mut engine = ChatMapperEngine::new(diamond, Options::default()).unwrap();
    send(&mut engine, Command::start());
    assert_eq!(send(&mut engine, Command::Next), ["said Keeper: Shared."]);
    assert_eq!(send(&mut engine, Command::Next), ["said Keeper: Hello."]);
}

#[test]
fn menu_text_of_only_whitespace_is_no_choice() {
    // M22: the entry with Menu Text " \r\n\t" is a line, so it plays at once (a line beats the
    // choices beside it) instead of standing in a menu as an option with no label.
    let blank = project(vec![(
        1,
        vec![
            node(1, 0, json!({"Title": "START"}), &[(1, 1), (1, 2)], json!({})),
            node(1, 1, choice("I'll go.", "I'll go."), &[], json!({})),
            node(1, 2, choice(" \r\n\t", "Quiet, then."), &[], json!({})),
        ],
    )]);
    assert!(!blank.conversations[0].entries[2].is_choice());
    let mut engine = ChatMapperEngine::new(blank, Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said Player: Quiet, then."]);
    assert_eq!(send(&mut engine, Command::Next), ["ended"]);
}

#[test]
fn a_link_into_another_conversations_middle_does_not_ask_its_root() {
    // M23: the root's condition answers "can this conversation start?"; a link that enters the
    // conversation past its root is filtered by its destination's own condition only.
    let guarded = |destination_condition: &str| {
        project(vec![
            (
                1,
                vec![
                    node(1, 0, json!({"Title": "START"}), &[(1, 1)], json!({})),
                    node(1, 1, line(2, "Hello."), &[(2, 3)], json!({})),
                ],
            ),
            (
                2,
                vec![
                    node(2, 0, json!({"Title": "START"}), &[(2, 3)], json!({"ConditionsString": "false"})),
                    node(2, 3, line(2, "Further in."), &[], json!({"ConditionsString": destination_condition})),
                ],
            ),
        ])
    };
    let mut open = ChatMapperEngine::new(guarded(""), Options::default()).unwrap();
    assert_eq!(send(&mut open, Command::start()), ["said Keeper: Hello."]);
    assert_eq!(send(&mut open, Command::Next), ["said Keeper: Further in."]);
    assert_eq!(send(&mut open, Command::Next), ["ended"]);
    // Starting that conversation from its root is still refused.
    assert_eq!(send(&mut open, Command::start_at("c2")), ["refused cannot-start"]);

    let mut closed = ChatMapperEngine::new(guarded("false"), Options::default()).unwrap();
    send(&mut closed, Command::start());
    assert_eq!(send(&mut closed, Command::Next), ["ended"]);
}

#[test]
fn an_entry_reached_only_by_connectors_inside_its_conversation_still_has_a_group() {
    // M25: the page gives a private group only to "a node reached only from another
    // conversation". Here every link is flagged a connector (hand-written XML does this), so no
    // entry has a tree edge; 2 and 3 are still both children of 1, a child of the root, and
    // compete: the High one suppresses the Normal one, and a single choice plays straight through.
    let xml = r#"<ChatMapperProject Title="t"><Assets>
      <Actors><Actor ID="1"><Fields><Field Type="Text"><Title>Name</Title><Value>Player</Value></Field></Fields></Actor></Actors>
      <Conversations><Conversation ID="1"><Fields><Field Type="Text"><Title>Title</Title><Value>c</Value></Field></Fields>
        <DialogEntries>
          <DialogEntry ID="0" IsRoot="true"><Fields><Field Type="Text"><Title>Title</Title><Value>START</Value></Field></Fields>
            <OutgoingLinks><Link OriginConvoID="1" DestinationConvoID="1" OriginDialogID="0" DestinationDialogID="1" IsConnector="true"/></OutgoingLinks></DialogEntry>
          <DialogEntry ID="1"><Fields><Field Type="Actor"><Title>Actor</Title><Value>1</Value></Field>
              <Field Type="Text"><Title>Dialogue Text</Title><Value>Well?</Value></Field></Fields>
            <OutgoingLinks><Link OriginConvoID="1" DestinationConvoID="1" OriginDialogID="1" DestinationDialogID="2" IsConnector="true"/>
              <Link OriginConvoID="1" DestinationConvoID="1" OriginDialogID="1" DestinationDialogID="3" IsConnector="true"/></OutgoingLinks></DialogEntry>
          <DialogEntry ID="2" ConditionPriority="Normal"><Fields><Field Type="Actor"><Title>Actor</Title><Value>1</Value></Field>
              <Field Type="Text"><Title>Menu Text</Title><Value>Ordinary.</Value></Field>
              <Field Type="Text"><Title>Dialogue Text</Title><Value>Ordinary.</Value></Field></Fields></DialogEntry>
          <DialogEntry ID="3" ConditionPriority="High"><Fields><Field Type="Actor"><Title>Actor</Title><Value>1</Value></Field>
              <Field Type="Text"><Title>Menu Text</Title><Value>Urgent.</Value></Field>
              <Field Type="Text"><Title>Dialogue Text</Title><Value>Urgent.</Value></Field></Fields></DialogEntry>
        </DialogEntries></Conversation></Conversations></Assets></ChatMapperProject>"#;
    let project = load(xml.as_bytes(), "t.xml").unwrap();
    let parents: Vec<_> = project.conversations[0].entries.iter().map(|e| e.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(1)]);
    let mut engine = ChatMapperEngine::new(project, Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said Player: Well?"]);
    assert_eq!(send(&mut engine, Command::Next), ["said Player: Urgent."]);
}

#[test]
fn an_actor_without_a_name_speaks_as_nobody() {
    // An actor with an empty or missing Name gives its lines no speaker, not a speaker named "".
    let json = br#"{"Assets": {"Actors": [{"ID": 1, "Fields": {"Name": ""}}, {"ID": 2, "Fields": {}}],
      "Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
        {"ID": 0, "IsRoot": true, "Fields": {"Title": "START"}, "OutgoingLinks": [{"DestinationDialogID": 1}]},
        {"ID": 1, "Fields": {"Actor": "1", "Dialogue Text": "One."}, "OutgoingLinks": [{"DestinationDialogID": 2}]},
        {"ID": 2, "Fields": {"Actor": "2", "Dialogue Text": "Two."}}]}]}}"#;
    let mut engine = ChatMapperEngine::new(load(json, "t.json").unwrap(), Options::default()).unwrap();
    assert_eq!(send(&mut engine, Command::start()), ["said -: One."]);
    assert_eq!(send(&mut engine, Command::Next), ["said -: Two."]);
}
