//! The realistic example (`examples/the-lighthouse.xml`, a 1.3-style XML export): it loads, passes
//! the checks it should, and plays to an end under a scripted driver.

use stagehand_chatmapper::check::{check, FindingKind};
use stagehand_chatmapper::{load, ChatMapperEngine, Options, Project, SimStatus};
use stagehand_lua::Value;
use stagehand_playbook::plain_text;
use stagehand_runner::{Answer, Answers, Command, OwnedEvent};

fn project() -> Project {
    let path = format!("{}/../../examples/the-lighthouse.xml", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

/// Drives a conversation: `next` through lines, the scripted choices at menus (modulo the menu's
/// length; the last option once the script runs out), "Ada" to prompts; the transcript, until the end.
fn drive(engine: &mut ChatMapperEngine, start: Command<'static>, choices: &[i64]) -> Vec<String> {
    let mut choices = choices.iter().copied();
    let mut transcript = Vec::new();
    let mut events = engine.send(start);
    for _ in 0..500 {
        let Some(last) = events.last().cloned() else { panic!("nothing to answer: {transcript:#?}") };
        for event in &events {
            transcript.push(match event {
                OwnedEvent::Said { speaker, speech } => {
                    format!("{}: {}", speaker.as_deref().unwrap_or("-"), plain_text(speech))
                }
                OwnedEvent::Offer { options, .. } => format!(
                    "menu: {}",
                    options.iter().map(|(label, _)| plain_text(label)).collect::<Vec<_>>().join(" / ")
                ),
                OwnedEvent::Resolve { questions } => format!("asks {}", questions[0].0),
                OwnedEvent::Ended => "ended".into(),
                other => panic!("unexpected {other:?}: {transcript:#?}"),
            });
        }
        let command = match last {
            OwnedEvent::Ended => return transcript,
            OwnedEvent::Said { .. } => Command::Next,
            OwnedEvent::Resolve { questions } => {
                Command::Supply(Answers::new().with(questions[0].0.clone(), Answer::Text("Ada".into())))
            }
            OwnedEvent::Offer { options, .. } => {
                let count = options.len() as i64;
                Command::Choose(choices.next().map_or(count - 1, |c| c % count))
            }
            other => panic!("unexpected {other:?}"),
        };
        events = engine.send(command);
    }
    panic!("no end: {transcript:#?}");
}

#[test]
fn it_loads_with_its_quirks() {
    let project = project();
    assert_eq!(project.version, "1.3.0.0");
    assert_eq!(project.actors.iter().map(|a| a.name()).collect::<Vec<_>>(), ["Player", "Old Mara", "Jörg"]);
    assert_eq!(project.conversations.len(), 2);
    let findings = check(&project);
    // The writer left two findings in on purpose: a script that calls the game's own `game`
    // (which only a world supplies), and a condition that is not an expression.
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0].kind, FindingKind::UndefinedGlobal { name: "game".into() });
    assert_eq!((findings[0].conversation, findings[0].entry), (Some(1), Some(8)));
    assert!(matches!(findings[1].kind, FindingKind::ConditionDoesNotCompile { .. }), "{findings:#?}");
    assert_eq!((findings[1].conversation, findings[1].entry), (Some(2), Some(3)));
}

#[test]
fn a_scripted_playthrough_lights_the_lamp() {
    let mut engine = ChatMapperEngine::new(project(), Options::seeded(7)).unwrap();
    // Ask about the lamp, offer oil, ask about Jörg, fix the door, light the lamp.
    let transcript = drive(&mut engine, Command::start_at("Lighthouse"), &[0, 1, 2, 0, 0]);
    let text = transcript.join("\n");
    // The prompt withholds the whole line: asked first, then both segments.
    assert!(
        text.starts_with(
            "asks player name\nOld Mara: [Location Change] The lamp room, high above the bay.\nOld Mara: Who climbs my stairs at this hour?\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("Old Mara: The lamp burns on 2 measures of oil.\nOld Mara: Not enough for a storm."),
        "{text}"
    );
    assert!(text.contains("menu: Ask about the lamp / Offer oil (3 coins left) / Ask about Jörg / Leave"), "{text}");
    assert!(text.contains("menu: Ask about the lamp / Offer oil (2 coins left) / Ask about Jörg / Leave"), "{text}");
    assert!(
        text.contains(
            "Jörg: Ja? The door, the Holztür, sticks again.\nmenu: Fix the door / Go back up / Help polish the hull"
        ),
        "{text}"
    );
    assert!(text.contains("menu: Light the lamp\nPlayer: You strike the match."), "{text}");
    assert!(
        text.ends_with("Old Mara: The beam sweeps the bay.\nOld Mara: Somewhere, a ship turns for home.\nended"),
        "{text}"
    );
    assert_eq!(engine.variable("Holztür"), Value::Boolean(true));
    assert_eq!(engine.variable("player name"), Value::String("Ada".into()));
    assert_eq!(engine.variable("coins"), Value::Number(2.0));
    // The beam's script calls an engine function the editor lacked: logged, and `lit` never set.
    assert_eq!(engine.variable("lit"), Value::Boolean(false));
    let log = engine.take_log();
    assert!(log.iter().any(|l| l.contains("conversation 1 entry 8") && l.contains("script failed")), "{log:#?}");
    assert!(log.iter().any(|l| l.contains("conversation 2 entry 3") && l.contains("counts as true")), "{log:#?}");
    assert_eq!(engine.status(2, 1), Some(SimStatus::WasDisplayed), "the deferred status was set");
}

#[test]
fn leaving_and_coming_back_keeps_the_playthrough() {
    let mut engine = ChatMapperEngine::new(project(), Options::default()).unwrap();
    let first = drive(&mut engine, Command::start(), &[3]);
    assert_eq!(first.last().map(String::as_str), Some("ended"));
    assert!(first.iter().any(|l| l == "Old Mara: Mind the steps, Ada."), "{first:#?}");
    let again = drive(&mut engine, Command::start(), &[2, 1]);
    assert_eq!(again[0], "Old Mara: Back again, Ada? The stairs do you good.", "{again:#?}");
    // Go back up: a cross-conversation link to the lighthouse's root, whose script runs again.
    assert!(again.iter().any(|l| l == "Old Mara: Back again, Ada? The stairs do you good."));
    assert_eq!(engine.variable("visits"), Value::Number(3.0));
}

#[test]
fn every_conversation_plays_to_an_end_with_any_first_choice() {
    for first in 0..4 {
        for conversation in ["1", "2"] {
            let mut engine = ChatMapperEngine::new(project(), Options::seeded(first as u64)).unwrap();
            if conversation == "2" {
                drive(&mut engine, Command::start(), &[3]);
            }
            let transcript = drive(&mut engine, Command::start_at(conversation), &[first]);
            assert_eq!(transcript.last().map(String::as_str), Some("ended"), "{transcript:#?}");
        }
    }
}
