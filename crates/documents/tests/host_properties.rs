//! Properties of the host session over random action sequences taken from each view, on random
//! DialogueDown scripts, random ChatMapper projects and the ChatMapper examples: (a) every
//! advertised action applies as
//! `executed`; (b) a replayed idempotency key never executes twice; (c) snapshot -> restore at
//! any rest point gives the same view and the same future; (d) the trace is contiguous and every
//! start has one finish.

mod host_support;

use host_support::*;
use proptest::prelude::*;
use stagehand_chatmapper::{load, ChatMapperEngine, Options as ChatMapperOptions, Project};
use stagehand_dialoguedown::{compile, Options};
use stagehand_protocol::{Engine, Receipt};
use stagehand_runner::RunnerEngine;
use stagehand_session::host::{Session, SessionSnapshot, TraceRecord};

/// A random script: sections of lines (some guarded, some with a command), each ending in a
/// menu whose options (some guarded) jump to sections, or in a jump, or at the end.
fn script() -> impl Strategy<Value = String> {
    let line = (0u8..4, 0u8..3);
    let option = (0usize..4, any::<bool>());
    let section = (prop::collection::vec(line, 1..4), prop::collection::vec(option, 0..4), 0usize..4);
    prop::collection::vec(section, 1..5).prop_map(|sections| {
        let count = sections.len();
        let mut out = String::new();
        for (i, (lines, options, jump)) in sections.into_iter().enumerate() {
            out.push_str(&format!("# Part {i}\n\n"));
            for (j, (shape, speaker)) in lines.into_iter().enumerate() {
                let speaker = ["Mira", "Bob", "Nora"][speaker as usize];
                match shape {
                    0 => out.push_str(&format!("{speaker}: Line {i}.{j}.\n\n")),
                    1 => out.push_str(&format!("`Key{j}?` {speaker}: Guarded {i}.{j}.\n\n")),
                    2 => out.push_str(&format!("{speaker}: Before `Act(\"{i}\")` after {i}.{j}.\n\n")),
                    _ => out.push_str(&format!("{speaker}: Hello {{Name}}, {i}.{j}.\n\n")),
                }
            }
            for (k, (target, guarded)) in options.iter().enumerate() {
                let target = target % count;
                let guard = if *guarded { format!("`Open{k}?` ") } else { String::new() };
                out.push_str(&format!("- {guard}Go to part {target}.\n\n  => [Part {target}](#part-{target})\n\n"));
            }
            if options.is_empty() && jump < count && jump != i {
                out.push_str(&format!("=> [Part {jump}](#part-{jump})\n\n"));
            }
        }
        out
    })
}

/// Plays `picks` from the views of a session, checking (a) and (b) on every move and (c) at
/// every `restore_every`-th rest point; returns the whole trace for (d).
fn play<E: Engine>(mut session: Session<E>, fresh: &dyn Fn() -> E, picks: &[usize]) -> Result<(), TestCaseError> {
    let mut trace: Vec<TraceRecord> = session.take_trace();
    for (turn, &pick) in picks.iter().enumerate() {
        let view = session.describe();
        let Some(choice) = choose(&view, pick) else { break };
        let key = format!("key-{turn}");
        let receipt = make(&mut session, &choice, &key, turn as u64);
        // (a) an advertised action (or a fitting answer to a pending question) executes.
        prop_assert!(matches!(receipt, Receipt::Executed { .. }), "turn {turn}: {receipt:?} from {view:?}");
        trace.extend(session.take_trace());
        // (b) the same key again returns the same bytes and executes nothing.
        let after = session.describe();
        let journal = session.journal().len();
        let again = make(&mut session, &choice, &key, turn as u64);
        prop_assert_eq!(serde_json::to_string(&again).unwrap(), serde_json::to_string(&receipt).unwrap());
        prop_assert_eq!(session.describe(), after.clone());
        prop_assert_eq!(session.journal().len(), journal);
        prop_assert!(session.take_trace().is_empty());
        // (c) at a rest point, a snapshot restores to the same view and the same future.
        if after.at_rest && pick % 3 == 0 {
            let json = serde_json::to_string(&session.snapshot().unwrap()).unwrap();
            let snapshot: SessionSnapshot<E::Snapshot> = serde_json::from_str(&json).unwrap();
            let mut restored = Session::restore(fresh(), snapshot).unwrap();
            prop_assert_eq!(restored.describe(), after.clone());
            for (ahead, &next) in picks[turn + 1..].iter().take(3).enumerate() {
                let view = session.describe();
                prop_assert_eq!(restored.describe(), view.clone());
                let Some(choice) = choose(&view, next) else { break };
                let key = format!("ahead-{turn}-{ahead}");
                let mine = make(&mut session, &choice, &key, 0);
                let theirs = make(&mut restored, &choice, &key, 0);
                prop_assert_eq!(&mine, &theirs);
                // The restored trace continues the original's sequence.
                let ours = session.take_trace();
                let restored_trace = restored.take_trace();
                prop_assert_eq!(
                    ours.iter().map(|r| r.sequence).collect::<Vec<_>>(),
                    restored_trace.iter().map(|r| r.sequence).collect::<Vec<_>>()
                );
                trace.extend(ours);
            }
        }
    }
    session.dispose(u64::MAX);
    trace.extend(session.take_trace());
    // (d) contiguous from 1, one start at the beginning, every start with one finish.
    prop_assert_eq!(trace.iter().filter(|r| r.kind == "session.started").count(), 1);
    prop_assert_eq!(trace.first().map(|r| r.kind.as_str()), Some("session.started"));
    prop_assert_eq!(trace.last().map(|r| r.kind.as_str()), Some("session.disposed"));
    if let Err(error) = check_trace(&trace, 1) {
        return Err(TestCaseError::fail(error));
    }
    Ok(())
}

/// A random ChatMapper project (a JSON export): one conversation of a root and up to seven
/// entries, each said by the player or a non-player actor, as a plain line, a line of two
/// segments, an input prompt, a line naming a prompt's answer, a silent entry or a menu-only
/// player line; some guarded by a condition on a flag or a counter, some running a script that
/// sets them, some groups; each linked to up to three entries (rings included).
fn project() -> impl Strategy<Value = Vec<u8>> {
    let entry = (any::<bool>(), 0u8..6, 0u8..4, 0u8..4, prop::collection::vec(0usize..8, 0..3), 0u8..6);
    (prop::collection::vec(entry, 1..8), prop::collection::vec(0usize..8, 1..3)).prop_map(|(entries, first)| {
        let count = entries.len();
        let link = |from: usize, to: usize| {
            serde_json::json!({"OriginConvoID": 1, "OriginDialogID": from, "DestinationConvoID": 1,
                               "DestinationDialogID": to % count + 1})
        };
        let mut nodes = vec![serde_json::json!({"ID": 0, "IsRoot": true, "Fields": {"Title": "START", "Actor": "2"},
                                                "OutgoingLinks": first.iter().map(|t| link(0, *t)).collect::<Vec<_>>()})];
        for (i, (player, shape, condition, script, links, group)) in entries.into_iter().enumerate() {
            let id = i + 1;
            let (text, menu) = match shape {
                0 => (format!("Line {id}."), String::new()),
                1 => (format!("First half {id}.|Second half {id}."), String::new()),
                2 => (format!("Your name, please? [?Name{id}]"), String::new()),
                3 => (format!("Hello, [var=Name{}].", (id % count) + 1), String::new()),
                4 => (String::new(), String::new()),
                _ => (format!("Said {id}."), format!("Choose {id}.")),
            };
            let condition = match condition {
                2 => "Variable[\"flag\"] == true",
                3 => "(Variable[\"count\"] or 0) < 2",
                _ => "",
            };
            let script = match script {
                2 => "Variable[\"flag\"] = true",
                3 => "Variable[\"count\"] = (Variable[\"count\"] or 0) + 1",
                _ => "",
            };
            nodes.push(serde_json::json!({
                "ID": id, "IsGroup": group == 0, "ConditionsString": condition, "UserScript": script,
                "Fields": {"Title": "", "Actor": if player { "1" } else { "2" }, "Menu Text": menu, "Dialogue Text": text},
                "OutgoingLinks": links.iter().map(|t| link(id, *t)).collect::<Vec<_>>()
            }));
        }
        let project = serde_json::json!({"Title": "random", "Assets": {
            "Actors": [{"ID": 1, "Fields": {"Name": "Player", "IsPlayer": "True"}},
                       {"ID": 2, "Fields": {"Name": "Keeper", "IsPlayer": "False"}}],
            "Conversations": [{"ID": 1, "Fields": {"Title": "random", "Actor": "2", "Conversant": "1"},
                               "DialogNodes": nodes}]}});
        serde_json::to_vec(&project).expect("JSON")
    })
}

fn example(name: &str) -> Project {
    let path = format!("{}/../../examples/{name}", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    load(&bytes, &path).unwrap_or_else(|e| panic!("{e}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn dialoguedown_sessions_keep_the_contract(source in script(), seed in any::<u64>(), picks in prop::collection::vec(any::<usize>(), 0..40)) {
        let compilation = compile(&source, "random.dialogue.md", &Options::default());
        let Some(playbook) = compilation.playbook else {
            return Err(TestCaseError::fail(format!("the generated script does not compile: {:?}", compilation.diagnostics)));
        };
        let fresh = || RunnerEngine::new(&playbook, seed);
        let session = Session::new(fresh(), "random", 0).unwrap();
        play(session, &fresh, &picks)?;
    }

}

// A ChatMapper engine builds a Lua sandbox for each fresh engine, restore and replay, which is
// slow in a debug build: fewer cases keep this test to seconds.
proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_chatmapper_sessions_keep_the_contract(bytes in project(), seed in any::<u64>(), picks in prop::collection::vec(any::<usize>(), 0..40)) {
        let project = match load(&bytes, "random.json") {
            Ok(project) => project,
            Err(error) => return Err(TestCaseError::fail(format!("the generated project does not load: {error}"))),
        };
        let fresh = || ChatMapperEngine::new(project.clone(), ChatMapperOptions::seeded(seed)).expect("an engine");
        let session: Session<ChatMapperEngine> = Session::new(fresh(), "random-cm", 0).unwrap();
        play(session, &fresh, &picks)?;
    }

    #[test]
    fn chatmapper_example_sessions_keep_the_contract(which in 0usize..2, seed in any::<u64>(), picks in prop::collection::vec(any::<usize>(), 0..40)) {
        let project = example(["the-crossing.json", "the-lighthouse.xml"][which]);
        let fresh = || ChatMapperEngine::new(project.clone(), ChatMapperOptions::seeded(seed)).unwrap();
        let session: Session<ChatMapperEngine> = Session::new(fresh(), "cm", 0).unwrap();
        play(session, &fresh, &picks)?;
    }
}

#[test]
fn the_project_generator_makes_projects_that_play() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut menus, mut questions) = (0, 0);
    for _ in 0..32 {
        let bytes = project().new_tree(&mut runner).expect("a project").current();
        let project = load(&bytes, "random.json").expect("it loads");
        let mut session =
            Session::new(ChatMapperEngine::new(project, ChatMapperOptions::seeded(1)).expect("an engine"), "g", 0)
                .unwrap();
        for turn in 0..12 {
            let view = session.describe();
            menus += usize::from(view.actions.iter().any(|a| a.id.starts_with("choose:")));
            questions += usize::from(!view.pending_questions.is_empty());
            let Some(choice) = choose(&view, turn) else { break };
            make(&mut session, &choice, &format!("k{turn}"), 0);
        }
    }
    assert!(menus > 0 && questions > 0, "the generator reaches menus ({menus}) and questions ({questions})");
}

#[test]
fn the_script_generator_makes_scripts_that_compile() {
    let source = "# Part 0\n\nMira: Line 0.0.\n\n- Go to part 0.\n\n  => [Part 0](#part-0)\n\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    assert!(compilation.playbook.is_some(), "{:?}", compilation.diagnostics);
    let _ = crossing_engine(&crossing());
}
