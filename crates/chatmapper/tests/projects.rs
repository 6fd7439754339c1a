//! Realistic projects load, and the model is what the files say.

use stagehand_chatmapper::markup::{forces_menu, input_prompt, is_action, render_line};
use stagehand_chatmapper::{
    load, lua_key, Coerced, ConditionPriority, Conversation, FalseConditionAction, FieldType, Id, Project,
};

fn path(relative: &str) -> String {
    format!("{}/{relative}", env!("CARGO_MANIFEST_DIR"))
}

fn load_file(relative: &str) -> Project {
    let path = path(relative);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

/// (entry, parent) for every entry, in document order.
fn parents(conversation: &Conversation) -> Vec<(Id, Option<Id>)> {
    conversation.entries.iter().map(|e| (e.id, e.parent)).collect()
}

/// (destination conversation, destination entry, connector flag) of an entry's links.
fn links(conversation: &Conversation, entry: Id) -> Vec<(Id, Id, Option<bool>)> {
    let entry = conversation.entry(entry).expect("the entry");
    entry.links.iter().map(|l| (l.destination_conversation, l.destination_entry, l.is_connector)).collect()
}

fn check_crossing(project: &Project) {
    assert_eq!(project.title, "The Crossing");
    assert_eq!(project.user_script, "");
    assert_eq!(project.actors.iter().map(|a| a.name()).collect::<Vec<_>>(), ["Traveller", "Ferryman"]);
    assert_eq!(project.actor(1).unwrap().field("IsPlayer").unwrap().lua_value(), Coerced::Boolean(true));
    assert_eq!(project.actor(2).unwrap().field("IsPlayer").unwrap().lua_value(), Coerced::Boolean(false));
    let token = project.user_variable("has_token").expect("the variable");
    assert_eq!(token.field("Initial Value").unwrap().lua_value(), Coerced::Boolean(false));

    let conversation = project.conversation_by_title("The Crossing").expect("the conversation");
    assert_eq!(conversation.id, 1);
    assert_eq!(conversation.entries.len(), 7);
    assert_eq!(conversation.start_entry().unwrap().id, 0);
    assert_eq!(
        conversation.entries.iter().map(|e| e.title()).collect::<Vec<_>>(),
        [
            "START",
            "Opening line",
            "Traveller's options",
            "Accept the token",
            "Stay ashore",
            "Ending - crossing",
            "Ending - ashore"
        ]
    );
    assert_eq!(
        parents(conversation),
        [(0, None), (1, Some(0)), (2, Some(1)), (3, Some(2)), (4, Some(2)), (5, Some(3)), (6, Some(4))]
    );
    let opening = conversation.entry(1).unwrap();
    assert_eq!(opening.actor_id(), Some(2));
    assert_eq!(opening.conversant_id(), Some(1));
    assert_eq!(render_line(opening.dialogue_text(), |_| String::new()).len(), 2);
    let options = conversation.entry(2).unwrap();
    assert!(options.is_group);
    assert_eq!(links(conversation, 2).iter().map(|l| l.1).collect::<Vec<_>>(), [3, 4]);
    let accept = conversation.entry(3).unwrap();
    assert_eq!(accept.menu_text(), "I'll take the crossing.");
    assert_eq!(accept.user_script, r#"Variable["has_token"] = true"#);
    assert_eq!(conversation.entry(4).unwrap().menu_text(), "I'll wait for morning.");
    assert_eq!(conversation.entry(5).unwrap().conditions, r#"Variable["has_token"] == true"#);
    for entry in &conversation.entries {
        assert_eq!(entry.condition_priority, ConditionPriority::Normal);
        assert_eq!(entry.false_condition_action, FalseConditionAction::Block);
        assert!(!entry.delay_sim_status);
        assert!(entry.links.iter().all(|l| !l.is_cross_conversation()));
    }
    assert!(conversation.entry(5).unwrap().links.is_empty() && conversation.entry(6).unwrap().links.is_empty());
}

#[test]
fn the_crossing_reads_the_same_from_xml_and_json() {
    let xml = load_file("../../examples/the-crossing.xml");
    let json = load_file("../../examples/the-crossing.json");
    check_crossing(&xml);
    check_crossing(&json);
    let xml_links: Vec<_> = xml.conversations[0].entries.iter().flat_map(|e| e.links.iter()).collect();
    let json_links: Vec<_> = json.conversations[0].entries.iter().flat_map(|e| e.links.iter()).collect();
    assert_eq!(xml_links.len(), 6);
    assert!(xml_links.iter().all(|l| l.is_connector == Some(false)));
    assert!(json_links.iter().all(|l| l.is_connector.is_none()));
    let strip = |l: &&stagehand_chatmapper::Link| (l.origin_entry, l.destination_entry);
    assert_eq!(xml_links.iter().map(strip).collect::<Vec<_>>(), json_links.iter().map(strip).collect::<Vec<_>>());
}

#[test]
fn the_crossing_xml_is_a_bom_and_crlf_file() {
    let bytes = std::fs::read(path("../../examples/the-crossing.xml")).unwrap();
    assert!(bytes.starts_with(b"\xEF\xBB\xBF<?xml"));
    assert!(bytes.windows(2).any(|w| w == b"\r\n"));
    assert!(!bytes.windows(2).any(|w| w[1] == b'\n' && w[0] != b'\r'));
}

#[test]
fn an_old_1_3_export_reads_with_normalised_links() {
    let project = load_file("tests/data/old-1.3.xml");
    assert_eq!((project.title.as_str(), project.version.as_str()), ("Old Mill", "1.3.0.0"));
    assert!(project.items.is_empty() && project.locations.is_empty());
    assert_eq!(project.actors.len(), 2);
    let miller = project.actor(1).unwrap();
    assert_eq!(miller.value("Description"), "Flour on his hands.\nFlour in his beard.");
    assert_eq!(miller.field("Description").unwrap().kind, FieldType::Text);
    assert_eq!(project.actor(2).unwrap().field("Age").unwrap().lua_value(), Coerced::Number(0.0));

    let conversation = project.conversation(1).unwrap();
    assert_eq!(conversation.entries.len(), 5);
    for entry in &conversation.entries {
        assert!(entry.links.iter().all(|l| l.origin_conversation == 1 && l.destination_conversation == 1));
        assert!(entry.links.iter().all(|l| l.origin_entry == entry.id));
    }
    assert_eq!(links(conversation, 1), [(1, 2, Some(false)), (1, 3, None)]);
    assert_eq!(parents(conversation), [(0, None), (1, Some(0)), (2, Some(1)), (3, Some(1)), (4, Some(2))]);
    let root = conversation.start_entry().unwrap();
    assert_eq!(root.menu_text(), "");
    let chores = conversation.entry(1).unwrap();
    assert_eq!(chores.user_script, "Variable[\"chores\"] = Variable[\"chores\"] + 1\nActor[\"Miller\"].Tired = true");
    assert_eq!(chores.field("Mood").unwrap().kind, FieldType::Text);
    let grumble = conversation.entry(2).unwrap();
    assert_eq!(grumble.false_condition_action, FalseConditionAction::Passthrough);
    assert_eq!(grumble.condition_priority, ConditionPriority::AboveNormal);
    assert_eq!(grumble.conditions, r#"Variable["chores"] < 3"#);
    let agree = conversation.entry(3).unwrap();
    assert!(agree.delay_sim_status);
    assert_eq!(agree.condition_priority, ConditionPriority::BelowNormal);
    let last = conversation.entry(4).unwrap();
    assert_eq!(last.condition_priority, ConditionPriority::Low);
    assert_eq!(last.dialogue_text(), "Off you go, then. Mind the wheel & the race.");

    let initial = |name: &str| project.user_variable(name).unwrap().field("Initial Value").unwrap().lua_value();
    assert_eq!(initial("chores"), Coerced::Number(0.0));
    assert_eq!(initial("met_miller"), Coerced::Boolean(true));
}

#[test]
fn a_utf16_export_reads() {
    let bytes = std::fs::read(path("tests/data/utf16.xml")).unwrap();
    assert!(bytes.starts_with(&[0xFF, 0xFE]));
    let project = load_file("tests/data/utf16.xml");
    assert_eq!((project.title.as_str(), project.author.as_str()), ("Größe", "Zoë"));
    assert_eq!(project.location(1).unwrap().name(), "Holztür");
    let conversation = project.conversation_by_title("Tür").unwrap();
    assert_eq!(conversation.entry(1).unwrap().dialogue_text(), "Klopf, klopf — 🚪");
    assert_eq!(conversation.entry(1).unwrap().parent, Some(0));

    // The same file as big-endian UTF-16, and as UTF-8 still declaring utf-16, reads the same.
    let text =
        String::from_utf16(&bytes[2..].chunks_exact(2).map(|p| u16::from_le_bytes([p[0], p[1]])).collect::<Vec<_>>())
            .unwrap();
    let big_endian: Vec<u8> = [0xFE, 0xFF].into_iter().chain(text.encode_utf16().flat_map(u16::to_be_bytes)).collect();
    assert_eq!(load(&big_endian, "be.xml").unwrap(), project);
    assert!(text.contains("encoding=\"utf-16\""));
    assert_eq!(load(text.as_bytes(), "declared.xml").unwrap(), project);
}

#[test]
fn a_localised_json_export_reads() {
    let project = load_file("tests/data/localised.json");
    assert_eq!((project.language.as_str(), project.user_script.as_str()), ("en-US", r#"Variable["greeted"] = false"#));
    let player = project.actor(1).unwrap();
    assert_eq!(player.field("IsPlayer").unwrap().lua_value(), Coerced::Boolean(true));
    assert_eq!(player.field("Age").unwrap().lua_value(), Coerced::Number(0.0));
    assert_eq!(player.field("fr-FR").unwrap().lua_value(), Coerced::String("Joueur".into()));
    assert_eq!(project.actor(2).unwrap().field("Age").unwrap().lua_value(), Coerced::Number(29.0));
    let initial = |name: &str| project.user_variable(name).unwrap().field("Initial Value").unwrap().lua_value();
    assert_eq!(initial("greeted"), Coerced::Boolean(false));
    assert_eq!(initial("coins"), Coerced::Number(12.0));
    assert_eq!(project.user_variables[0].id, 0);

    let conversation = project.conversation_by_title("Greeting").unwrap();
    assert_eq!(conversation.field("Actor").unwrap().lua_value(), Coerced::Number(2.0));
    assert_eq!(conversation.entries.len(), 5);
    let hello = conversation.entry(1).unwrap();
    assert_eq!(hello.value("fr-FR"), "Bonjour ! Belle journée.");
    assert_eq!(hello.value("de-DE"), "Hallo! Schöner Tag.");
    assert_eq!(hello.field("de-DE").unwrap().kind, FieldType::Localization, "typed as the XML export types it (M39)");
    let yes = conversation.entry(2).unwrap();
    assert_eq!((yes.menu_text(), yes.value("Menu Text fr-FR")), ("It is.", "En effet."));
    // JSON has no connector flag: the first incoming link in document order is the parent.
    assert_eq!(parents(conversation), [(0, None), (1, Some(0)), (2, Some(1)), (3, Some(1)), (4, Some(2))]);
    assert_eq!(links(conversation, 3), [(1, 4, None)]);
}

#[test]
fn a_hub_and_spoke_project_reads() {
    let project = load_file("tests/data/hub.xml");
    assert_eq!(project.user_script, "Variable[\"visits\"] = 0\nLocation[\"Holztür\"].Visited = false");
    let kick = project.actor(2).unwrap();
    assert_eq!(lua_key(kick.name()), "Kick_Hart");
    assert_eq!(kick.field("Age").unwrap().lua_value(), Coerced::Number(52.0));
    assert_eq!(kick.field("Mood").unwrap().lua_value(), Coerced::String("gruff".into()));
    assert_eq!(lua_key(project.item(1).unwrap().name()), "Talk_to_FET-1");
    assert_eq!(project.item(2).unwrap().field("Owner").unwrap().lua_value(), Coerced::Number(2.0));
    assert_eq!(lua_key(project.location(1).unwrap().name()), "Holztür");
    let initial = |name: &str| project.user_variable(name).unwrap().field("Initial Value").unwrap().lua_value();
    assert_eq!(initial("door_open"), Coerced::Boolean(false));
    assert_eq!(initial("visits"), Coerced::Number(0.0));
    assert_eq!(initial("player_name"), Coerced::String(String::new()));

    let hub = project.conversation_by_title("Tavern Hub").unwrap();
    assert_eq!(hub.entries.len(), 11);
    let root = hub.start_entry().unwrap();
    assert_eq!(root.conditions, r#"Variable["visits"] >= 0"#);
    assert_eq!(
        root.user_script,
        "Variable[\"visits\"] = Variable[\"visits\"] + 1\nVariable[\"roll\"] = math.random(6)"
    );
    assert!(hub.entry(2).unwrap().is_group);
    assert_eq!(links(hub, 2).iter().map(|l| l.1).collect::<Vec<_>>(), [3, 4, 5, 6, 10]);
    for spoke_end in [7, 8, 9, 10] {
        assert_eq!(links(hub, spoke_end), [(1, 2, Some(true))], "entry {spoke_end} loops back to the hub");
    }
    assert_eq!(links(hub, 6), [(2, 3, Some(true))]);
    assert!(hub.entry(6).unwrap().links[0].is_cross_conversation());
    assert_eq!(
        parents(hub),
        [
            (0, None),
            (1, Some(0)),
            (2, Some(1)),
            (3, Some(2)),
            (4, Some(2)),
            (5, Some(2)),
            (6, Some(2)),
            (7, Some(3)),
            (8, Some(4)),
            (9, Some(5)),
            (10, Some(2))
        ]
    );
    assert_eq!(hub.tree_children(2).map(|e| e.id).collect::<Vec<_>>(), [3, 4, 5, 6, 10]);
    let door = hub.entry(3).unwrap();
    assert_eq!(
        (door.condition_priority, door.conditions.as_str()),
        (ConditionPriority::High, r#"Location["Holztür"].Visited == false"#)
    );
    assert_eq!(render_line(door.dialogue_text(), |_| String::new()), ["[Location Change] The door creaks."]);
    let job = hub.entry(4).unwrap();
    assert_eq!(job.false_condition_action, FalseConditionAction::Passthrough);
    assert!(forces_menu(job.menu_text()));
    assert_eq!(job.conditions, r#"Item["Talk_to_FET-1"].State == "active""#);
    let dice = hub.entry(5).unwrap();
    assert!(dice.delay_sim_status);
    assert_eq!(dice.user_script, r#"Variable["roll"] = math.random(6)"#);
    assert!(is_action(hub.entry(6).unwrap().menu_text()));
    assert_eq!(hub.entry(6).unwrap().condition_priority, ConditionPriority::BelowNormal);
    let answer = render_line(hub.entry(8).unwrap().dialogue_text(), |name| match name {
        "visits" => "3".into(),
        other => lua_key(other),
    });
    assert_eq!(answer, ["You've been here 3 times. Ask Kick_Hart's cousin."]);
    assert_eq!(input_prompt(hub.entry(10).unwrap().dialogue_text()).unwrap().name, "player_name");
    assert_eq!(hub.entry(10).unwrap().condition_priority, ConditionPriority::Low);
    let greeting = render_line(hub.entry(1).unwrap().dialogue_text(), |_| String::new());
    assert_eq!(greeting, ["[em1]Welcome[/em1] back, traveller.", "What'll it be?"]);

    let cellar = project.conversation_by_title("Cellar").unwrap();
    assert_eq!(cellar.entries.len(), 4);
    // Entry 3 is reached only from the hub: no parent, a private group.
    assert_eq!(parents(cellar), [(0, None), (1, Some(0)), (2, Some(1)), (3, None)]);
    assert_eq!(links(cellar, 2), [(1, 2, Some(true))]);
    let back = &cellar.entry(2).unwrap().links[0];
    assert_eq!(project.destination(back).unwrap().title(), "Hub");
}
