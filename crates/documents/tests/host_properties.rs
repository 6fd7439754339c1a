//! Properties of the host session over random action sequences taken from each view, on random
//! DialogueDown scripts and on the ChatMapper examples: (a) every advertised action applies as
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

    #[test]
    fn chatmapper_sessions_keep_the_contract(which in 0usize..2, seed in any::<u64>(), picks in prop::collection::vec(any::<usize>(), 0..40)) {
        let project = example(["the-crossing.json", "the-lighthouse.xml"][which]);
        let fresh = || ChatMapperEngine::new(project.clone(), ChatMapperOptions::seeded(seed)).unwrap();
        let session: Session<ChatMapperEngine> = Session::new(fresh(), "cm", 0).unwrap();
        play(session, &fresh, &picks)?;
    }
}

#[test]
fn the_script_generator_makes_scripts_that_compile() {
    let source = "# Part 0\n\nMira: Line 0.0.\n\n- Go to part 0.\n\n  => [Part 0](#part-0)\n\n";
    let compilation = compile(source, "t.dialogue.md", &Options::default());
    assert!(compilation.playbook.is_some(), "{:?}", compilation.diagnostics);
    let _ = crossing_engine(&crossing());
}
