//! Questions the page leaves to the reader, settled (docs/design/chatmapper.md M22, M23, M25):
//! Menu Text that is only whitespace, a link into another conversation's non-root entry, and the
//! priority group of an entry reached only by connectors; and the speaker of a nameless actor.

use serde_json::{json, Value as Json};
use stagehand_chatmapper::{load, ChatMapperEngine, Options, Project};
use stagehand_playbook::plain_text;
use stagehand_runner::{Command, OwnedEvent};

/// A dialog node of conversation `c` with these fields, links to `(conversation, entry)` pairs
/// and any other properties in `extra`.
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

fn project(conversations: Vec<(i64, Vec<Json>)>) -> Project {
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

fn start() -> Json {
    json!({"Title": "START"})
}

fn line(actor: i64, text: &str) -> Json {
    json!({"Title": text, "Actor": actor.to_string(), "Dialogue Text": text})
}

fn choice(menu: &str, text: &str) -> Json {
    json!({"Title": text, "Actor": "1", "Menu Text": menu, "Dialogue Text": text})
}

fn send(engine: &mut ChatMapperEngine, command: Command<'_>) -> Vec<String> {
    engine
        .send(command)
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

#[test]
fn menu_text_of_only_whitespace_is_no_choice() {
    // M22: the entry with Menu Text " \r\n\t" is a line, so it plays at once (a line beats the
    // choices beside it) instead of standing in a menu as an option with no label.
    let blank = project(vec![(
        1,
        vec![
            node(1, 0, start(), &[(1, 1), (1, 2)], json!({})),
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
            (1, vec![node(1, 0, start(), &[(1, 1)], json!({})), node(1, 1, line(2, "Hello."), &[(2, 3)], json!({}))]),
            (
                2,
                vec![
                    node(2, 0, start(), &[(2, 3)], json!({"ConditionsString": "false"})),
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
