#![allow(missing_docs)]
//! The ChatMapper engine's costs: loading and playing a generated project of 10,000 entries,
//! computing an offered set of 50 conditional candidates, and condition evaluations per second.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use serde_json::{json, Value};
use stagehand_chatmapper::{load, ChatMapperEngine, Options};
use stagehand_runner::{Command, OwnedEvent};

fn link(from: i64, to: i64) -> Value {
    json!({"OriginConvoID": 1, "OriginDialogID": from, "DestinationConvoID": 1, "DestinationDialogID": to})
}

fn node(id: i64, fields: Value, links: Vec<Value>, condition: &str, script: &str) -> Value {
    json!({"ID": id, "IsRoot": id == 0, "Fields": fields, "OutgoingLinks": links,
           "ConditionsString": condition, "UserScript": script})
}

fn project(nodes: Vec<Value>) -> Vec<u8> {
    let project = json!({"Title": "Generated", "Assets": {
        "Actors": [{"ID": 1, "Fields": {"Name": "Player"}}, {"ID": 2, "Fields": {"Name": "Guide"}}],
        "UserVariables": [{"Fields": {"Name": "score", "Initial Value": "0"}}],
        "Conversations": [{"ID": 1, "Fields": {"Title": "Generated"}, "DialogNodes": nodes}]}});
    serde_json::to_vec(&project).expect("serializable")
}

/// 2,500 scenes of four entries: a two-segment line offering three conditional choices with
/// scripts, each leading to the next scene's line (10,000 entries and the root).
fn scenes(count: i64) -> Vec<u8> {
    let mut nodes = vec![node(0, json!({"Title": "START"}), vec![link(0, 1)], "", "")];
    for scene in 0..count {
        let line = 1 + scene * 4;
        let choices = (1..=3).map(|c| link(line, line + c)).collect();
        let text = format!("Scene {scene}, score [var=score].|What now?");
        nodes.push(node(line, json!({"Actor": "2", "Dialogue Text": text}), choices, "", ""));
        for c in 1..=3 {
            let links = if scene + 1 < count { vec![link(line + c, line + 4)] } else { Vec::new() };
            let fields =
                json!({"Actor": "1", "Menu Text": format!("Option {c}"), "Dialogue Text": format!("I pick {c}.")});
            let condition = format!("Variable[\"score\"] >= {}", -c);
            nodes.push(node(line + c, fields, links, &condition, "Variable[\"score\"] = Variable[\"score\"] + 1"));
        }
    }
    project(nodes)
}

/// One line offering 50 choices, each with its own condition (half of them true).
fn fifty() -> Vec<u8> {
    let mut nodes = vec![node(0, json!({"Title": "START"}), vec![link(0, 1)], "", "")];
    nodes.push(node(1, json!({"Dialogue Text": "Choose."}), (2..52).map(|to| link(1, to)).collect(), "", ""));
    for id in 2..52 {
        let condition = format!("Variable[\"score\"] + {id} > 26 and Dialog[{id}].SimStatus ~= \"WasDisplayed\"");
        nodes.push(node(id, json!({"Menu Text": format!("Option {id}")}), Vec::new(), &condition, ""));
    }
    project(nodes)
}

fn play_to_end(engine: &mut ChatMapperEngine) -> usize {
    let mut steps = 0;
    let mut events = engine.send(Command::start());
    loop {
        steps += 1;
        let command = match events.last() {
            Some(OwnedEvent::Said { .. }) => Command::Next,
            Some(OwnedEvent::Offer { options, .. }) => Command::Choose((steps % options.len()) as i64),
            _ => return steps,
        };
        events = engine.send(command);
    }
}

fn engine(c: &mut Criterion) {
    let big = scenes(2_500);
    let mut group = c.benchmark_group("chatmapper");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("load_and_play_10000_entries", |b| {
        b.iter(|| {
            let project = load(black_box(&big), "generated.json").expect("loads");
            let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
            let steps = play_to_end(&mut engine);
            assert!(engine.is_finished() && steps > 10_000);
        })
    });
    group.finish();

    let project = load(&fifty(), "fifty.json").expect("loads");
    let mut engine = ChatMapperEngine::new(project, Options::default()).expect("an engine");
    // Starting points `Dialog` at the conversation, which the conditions read.
    assert!(matches!(engine.send(Command::start()).as_slice(), [OwnedEvent::Said { .. }]));
    assert_eq!(engine.offered(1, 1).expect("entry 1").len(), 25);
    assert!(engine.take_log().is_empty(), "every condition evaluates");
    let mut group = c.benchmark_group("chatmapper");
    group.throughput(Throughput::Elements(1));
    group.bench_function("offered_set_of_50_conditional_candidates", |b| {
        b.iter(|| engine.offered(1, black_box(1)).expect("entry 1"))
    });
    group.bench_function("condition_evaluation", |b| b.iter(|| engine.condition_holds(1, black_box(30))));
    group.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
