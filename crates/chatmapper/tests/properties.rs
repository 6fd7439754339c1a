//! Arbitrary command sequences against the example projects: the engine never panics, every
//! command is answered, and the protocol's bookkeeping holds.

use proptest::prelude::*;
use stagehand_chatmapper::{load, ChatMapperEngine, Options, Project};
use stagehand_runner::{Answer, Answers, Command, OwnedEvent, RefusalReason};

const EXAMPLES: [&str; 3] = ["the-crossing.json", "the-crossing.xml", "the-lighthouse.xml"];

fn project(name: &str) -> Project {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

#[derive(Debug, Clone)]
enum Op {
    Command(Command<'static>),
    Save,
    Restore,
}

fn answer() -> impl Strategy<Value = Answer<'static>> {
    prop_oneof![
        any::<bool>().prop_map(Answer::Truth),
        "\\PC{0,8}".prop_map(|s| Answer::Text(s.into())),
        any::<f64>().prop_map(Answer::Number),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let anchor = prop_oneof![
        Just(None),
        Just(Some("1".to_owned())),
        Just(Some("2".to_owned())),
        Just(Some("Lighthouse".to_owned())),
        Just(Some("The Crossing".to_owned())),
        "\\PC{0,6}".prop_map(Some),
    ];
    let key = prop_oneof![Just("player name".to_owned()), "\\PC{0,6}"];
    prop_oneof![
        3 => Just(Op::Command(Command::Next)),
        3 => (-2i64..6).prop_map(|i| Op::Command(Command::Choose(i))),
        1 => anchor.prop_map(|a| Op::Command(Command::Start { anchor: a.map(Into::into) })),
        1 => Just(Op::Command(Command::Done)),
        1 => "\\PC{1,6}".prop_map(|why| Op::Command(Command::failed(why))),
        2 => prop::collection::vec((key, answer()), 0..3)
            .prop_map(|answers| Op::Command(Command::Supply(answers.into_iter().collect::<Answers<'static>>()))),
        1 => Just(Op::Save),
        1 => Just(Op::Restore),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_commands_never_panic(example in 0..EXAMPLES.len(), seed in any::<u64>(), ops in prop::collection::vec(op(), 0..60)) {
        let mut engine = ChatMapperEngine::new(project(EXAMPLES[example]), Options::seeded(seed)).unwrap();
        let mut saved = None;
        for op in ops {
            match op {
                Op::Save => saved = Some(engine.snapshot().unwrap()),
                Op::Restore => {
                    if let Some(snapshot) = &saved {
                        engine.restore(snapshot).unwrap();
                    }
                }
                Op::Command(command) => {
                    let finished_before = engine.is_finished();
                    let events = engine.send(command);
                    prop_assert!(!events.is_empty(), "every command is answered");
                    let refused = matches!(events.as_slice(), [OwnedEvent::Refused { reason, .. }] if *reason != RefusalReason::EndlessLoop);
                    if refused {
                        prop_assert_eq!(engine.is_finished(), finished_before, "a refusal changes nothing");
                    }
                    if matches!(events.last(), Some(OwnedEvent::Ended)) {
                        prop_assert!(engine.is_finished());
                    }
                    let requests = events.iter().filter(|e| matches!(e, OwnedEvent::Offer { .. } | OwnedEvent::Resolve { .. })).count();
                    prop_assert!(requests <= 1, "at most one request per step: {:?}", events);
                }
            }
            let _ = engine.observe();
            let _ = engine.take_log();
        }
    }
}
