//! Input prompts and the text around them, where audits found the engine wrong: an answer stored
//! by its variable's declared type (M32), a prompt token in Menu Text (M33), and the log of an
//! offered set that reaches one group along two paths (M34).

use serde_json::{json, Value as Json};
use stagehand_chatmapper::{load, ChatMapperEngine, Options};
use stagehand_lua::Value;
use stagehand_playbook::plain_text;
use stagehand_runner::{Answer, Answers, Command, OwnedEvent};

/// An XML export of one conversation: `entries` as written inside `<DialogEntries>`, and user
/// variables `(name, type, initial value)`.
fn xml(variables: &[(&str, &str, &str)], entries: &str) -> stagehand_chatmapper::Project {
    let variables: String = variables
        .iter()
        .map(|(name, kind, value)| {
            format!(
                "<UserVariable><Fields><Field Type=\"Text\"><Title>Name</Title><Value>{name}</Value></Field>\
                 <Field Type=\"{kind}\"><Title>Initial Value</Title><Value>{value}</Value></Field></Fields></UserVariable>"
            )
        })
        .collect();
    let text = format!(
        "<ChatMapperProject Title=\"t\"><Assets><Conversations><Conversation ID=\"1\"><Fields>\
         <Field Type=\"Text\"><Title>Title</Title><Value>c</Value></Field></Fields><DialogEntries>{entries}\
         </DialogEntries></Conversation></Conversations><UserVariables>{variables}</UserVariables></Assets>\
         </ChatMapperProject>"
    );
    load(text.as_bytes(), "t.xml").expect("the project loads")
}

/// A dialog entry of the XML export: its ID, Dialogue Text, condition and the entries it links to.
fn entry(id: i64, text: &str, condition: &str, links: &[i64]) -> String {
    let links: String = links
        .iter()
        .map(|to| {
            format!(
                "<Link OriginConvoID=\"1\" DestinationConvoID=\"1\" OriginDialogID=\"{id}\" \
                 DestinationDialogID=\"{to}\" IsConnector=\"false\" />"
            )
        })
        .collect();
    format!(
        "<DialogEntry ID=\"{id}\" IsRoot=\"{}\"><Fields><Field Type=\"Text\"><Title>Title</Title><Value>e{id}</Value>\
         </Field><Field Type=\"Text\"><Title>Dialogue Text</Title><Value>{text}</Value></Field></Fields>\
         <OutgoingLinks>{links}</OutgoingLinks><ConditionsString>{condition}</ConditionsString></DialogEntry>",
        id == 0
    )
}

/// The root leads to a prompt for `name`, which leads to "Adult." when `Variable[name] > 18`
/// holds and to "Young." otherwise (the first line in link order plays).
fn age_check(variables: &[(&str, &str, &str)], name: &str) -> stagehand_chatmapper::Project {
    let condition = format!("Variable[\"{name}\"] &gt; 18");
    let entries = [
        entry(0, "", "", &[1]),
        entry(1, &format!("How old are you? [?{name}]"), "", &[2, 3]),
        entry(2, "Adult.", &condition, &[]),
        entry(3, "Young.", "", &[]),
    ];
    xml(variables, &entries.concat())
}

fn short(events: &[OwnedEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event {
            OwnedEvent::Said { speech, .. } => format!("said {}", plain_text(speech)),
            OwnedEvent::Offer { options, .. } => format!(
                "offer [{}]",
                options.iter().map(|(label, _)| plain_text(label)).collect::<Vec<_>>().join(" | ")
            ),
            OwnedEvent::Resolve { questions } => format!("resolve {}", questions[0].0),
            OwnedEvent::Ended => "ended".into(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// Starts `project`, answers its first prompt `name` with `answer` and plays the lines after it;
/// the engine and the transcript from the answer on.
fn answer(project: stagehand_chatmapper::Project, name: &str, answer: &str) -> (ChatMapperEngine, Vec<String>) {
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    assert_eq!(short(&engine.send(Command::start())), [format!("resolve {name}")]);
    let mut transcript = short(&engine.send(Command::Supply(Answers::new().with(name, Answer::Text(answer.into())))));
    while transcript.last().is_some_and(|l| l.starts_with("said")) {
        transcript.extend(short(&engine.send(Command::Next)));
    }
    (engine, transcript)
}

#[test]
fn an_answer_to_a_number_variable_is_a_number() {
    for (given, stored, says) in
        [("42", 42.0, "said Adult."), (" 12 ", 12.0, "said Young."), ("0x20", 32.0, "said Adult.")]
    {
        let (mut engine, transcript) = answer(age_check(&[("age", "Number", "0")], "age"), "age", given);
        assert_eq!(engine.variable("age"), Value::Number(stored), "{given:?}");
        assert_eq!(transcript, ["said How old are you?", says, "ended"], "{given:?}");
        assert_eq!(engine.take_log(), Vec::<String>::new(), "{given:?}");
    }
}

#[test]
fn an_unparsable_answer_to_a_number_variable_is_zero_and_logged() {
    let (mut engine, transcript) = answer(age_check(&[("age", "Number", "7")], "age"), "age", "old enough");
    assert_eq!(engine.variable("age"), Value::Number(0.0));
    assert_eq!(transcript, ["said How old are you?", "said Young.", "ended"]);
    let log = engine.take_log();
    assert_eq!(log.len(), 1, "{log:#?}");
    assert!(log[0].contains("\"old enough\"") && log[0].contains("not a number") && log[0].contains("0"), "{log:#?}");
}

#[test]
fn an_answer_to_a_boolean_variable_is_true_only_for_true() {
    let project = |answer_is: &str| {
        let entries = [
            entry(0, "", "", &[1]),
            entry(1, "Brave? [?brave]", "", &[2, 3]),
            entry(2, "Onward.", "Variable[\"brave\"]", &[]),
            entry(3, "Home.", "", &[]),
        ];
        (xml(&[("brave", "Boolean", "False")], &entries.concat()), answer_is.to_owned())
    };
    for (given, stored) in [("True", true), (" true ", true), ("TRUE", true), ("yes", false), ("false", false)] {
        let (p, given) = project(given);
        let (engine, transcript) = answer(p, "brave", &given);
        assert_eq!(engine.variable("brave"), Value::Boolean(stored), "{given:?}");
        assert_eq!(transcript[1], if stored { "said Onward." } else { "said Home." }, "{given:?}");
    }
}

#[test]
fn a_number_typed_boolean_initial_value_makes_a_boolean_variable() {
    // FORMAT.md §5's quirk: a Number-typed Initial Value of True/False is a boolean, so the
    // variable holds booleans and its answer is read as one.
    let (engine, _) = answer(age_check(&[("age", "Number", "False")], "age"), "age", "True");
    assert_eq!(engine.variable("age"), Value::Boolean(true));
}

#[test]
fn text_and_undeclared_variables_keep_the_answer_as_written() {
    let (engine, _) = answer(age_check(&[("age", "Text", "")], "age"), "age", "42");
    assert_eq!(engine.variable("age"), Value::String("42".into()));
    let (engine, _) = answer(age_check(&[], "age"), "age", " 42 ");
    assert_eq!(engine.variable("age"), Value::String(" 42 ".into()));
}

#[test]
fn a_json_variable_is_typed_by_its_initial_value() {
    let node = |id: i64, text: &str, links: &[i64]| {
        let links: Vec<Json> = links
            .iter()
            .map(|to| json!({"OriginConvoID": 1, "OriginDialogID": id, "DestinationConvoID": 1, "DestinationDialogID": to}))
            .collect();
        json!({"ID": id, "IsRoot": id == 0, "Fields": {"Title": format!("e{id}"), "Dialogue Text": text}, "OutgoingLinks": links})
    };
    let document = json!({"Title": "t", "Assets": {
        "Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": [
            node(0, "", &[1]), node(1, "[?gold] [?brave] [?name]", &[])]}],
        "UserVariables": [
            {"Fields": {"Name": "gold", "Initial Value": "5"}},
            {"Fields": {"Name": "brave", "Initial Value": "False"}},
            {"Fields": {"Name": "name", "Initial Value": "Ada"}}]}});
    let project = load(document.to_string().as_bytes(), "t.json").expect("the project loads");
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    engine.send(Command::start());
    let answers = Answers::new()
        .with("gold", Answer::Text("12".into()))
        .with("brave", Answer::Text("True".into()))
        .with("name", Answer::Text("7".into()));
    engine.send(Command::Supply(answers));
    assert_eq!(engine.variable("gold"), Value::Number(12.0));
    assert_eq!(engine.variable("brave"), Value::Boolean(true));
    assert_eq!(engine.variable("name"), Value::String("7".into()));
}

/// A JSON dialog node of conversation 1: its fields, the entries it links to, and any other
/// properties (`IsGroup`, ...).
fn node(id: i64, fields: Json, links: &[i64], extra: Json) -> Json {
    let links: Vec<Json> = links
        .iter()
        .map(|to| json!({"OriginConvoID": 1, "OriginDialogID": id, "DestinationConvoID": 1, "DestinationDialogID": to}))
        .collect();
    let mut node = json!({"ID": id, "IsRoot": id == 0, "Fields": fields, "OutgoingLinks": links});
    if let (Some(node), Some(extra)) = (node.as_object_mut(), extra.as_object()) {
        node.extend(extra.clone());
    }
    node
}

fn json_project(nodes: Vec<Json>) -> stagehand_chatmapper::Project {
    let document = json!({"Title": "t", "Assets": {
        "Conversations": [{"ID": 1, "Fields": {"Title": "c"}, "DialogNodes": nodes}],
        "UserVariables": [{"Fields": {"Name": "name", "Initial Value": "Ada"}}]}});
    load(document.to_string().as_bytes(), "t.json").expect("the project loads")
}

#[test]
fn a_prompt_in_menu_text_is_left_out_of_the_label() {
    // A label cannot ask the player, and FORMAT.md §7 makes [?Name] a prompt, never text to show:
    // the token is stripped from the label like [f] (decision M33).
    let project = json_project(vec![
        node(0, json!({"Title": "START"}), &[1], json!({})),
        node(1, json!({"Title": "ask", "Dialogue Text": "Well?"}), &[2, 3, 4], json!({})),
        node(
            2,
            json!({"Title": "a", "Menu Text": "Tell them [?name]your name[f]", "Dialogue Text": "I tell."}),
            &[],
            json!({}),
        ),
        node(
            3,
            json!({"Title": "b", "Menu Text": "[var=?name] Say [var=name]", "Dialogue Text": "I say."}),
            &[],
            json!({}),
        ),
        node(4, json!({"Title": "c", "Menu Text": "[?name]", "Dialogue Text": "Nothing, [var=name]."}), &[], json!({})),
    ]);
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    assert_eq!(short(&engine.send(Command::start())), ["said Well?"]);
    assert_eq!(short(&engine.send(Command::Next)), ["offer [Tell them your name | Say Ada | Nothing, Ada.]"]);
    // What a host shows for an entry (`:why`) is the same label.
    assert_eq!(engine.label(1, 2).as_deref(), Some("Tell them your name"));
    assert_eq!(engine.label(1, 4).as_deref(), Some("Nothing, Ada."));
    assert_eq!((engine.label(1, 1), engine.label(1, 9)), (None, None), "a line, and no entry");
}

#[test]
fn a_group_reached_along_two_paths_is_expanded_once_and_the_log_stays_clean() {
    // Two groups lead to one shared group: M6 expands it once for the offered set. Nothing is
    // wrong with the project, so nothing is logged (decision M34).
    let group = json!({"IsGroup": true});
    let project = json_project(vec![
        node(0, json!({"Title": "START"}), &[1], json!({})),
        node(1, json!({"Title": "ask", "Dialogue Text": "Which?"}), &[2, 3], json!({})),
        node(2, json!({"Title": "left"}), &[4], group.clone()),
        node(3, json!({"Title": "right"}), &[4], group.clone()),
        node(4, json!({"Title": "shared"}), &[5, 6], group),
        node(5, json!({"Title": "x", "Menu Text": "This one."}), &[], json!({})),
        node(6, json!({"Title": "y", "Menu Text": "That one."}), &[], json!({})),
    ]);
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    assert_eq!(short(&engine.send(Command::start())), ["said Which?"]);
    assert_eq!(short(&engine.send(Command::Next)), ["offer [This one. | That one.]"]);
    assert_eq!(engine.take_log(), Vec::<String>::new());
}
