//! The harness fails when it should: each way a session, a verdict or a case can go wrong is
//! reported as its own failure.

use std::sync::Arc;

use serde_json::json;
use stagehand_conformance::{hold, hold_final, Case, Fixture, FixtureKind, Harness, Outcome, Turn};
use stagehand_playbook::{read, write, Playbook};
use stagehand_runner::RunnerEngine;

/// The corpus's `linear-speech` playbook: Alice says "Hello.", Bob says "Goodbye.", the end.
fn linear() -> Playbook {
    let path =
        stagehand_conformance::repository_root().join("conformance/dialoguedown/playable/linear-speech/playbook.json");
    read(&std::fs::read_to_string(path).expect("the corpus")).expect("a playbook")
}

fn session(turns: serde_json::Value) -> Vec<Turn> {
    let fixture = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "session": turns });
    match Fixture::parse(&fixture.to_string()).expect("a fixture").kind {
        FixtureKind::Playable { session: Some(session), .. } => session,
        other => unreachable!("a session fixture, not {other:?}"),
    }
}

fn divergence(turns: serde_json::Value) -> String {
    let playbook = linear();
    let mut engine = RunnerEngine::new(&playbook, 0);
    hold(&session(turns), &mut engine).expect_err("the session must diverge").message
}

#[test]
fn a_faithful_session_holds() {
    let turns = json!([
        { "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } },
        { "send": "next" },
        { "expect": { "said": { "speaker": "Bob", "speech": "Goodbye." } } },
        { "send": "next" },
        { "expect": { "ended": {} } }
    ]);
    let playbook = linear();
    let mut engine = RunnerEngine::new(&playbook, 0);
    assert_eq!(hold(&session(turns), &mut engine), Ok(()));
}

#[test]
fn a_said_that_differs_in_two_fields_names_both() {
    let message = divergence(json!([{ "expect": { "said": { "speaker": "Bob", "speech": "Hi." } } }]));
    assert!(message.contains("the speaker is Alice, not Bob"), "{message}");
    assert!(message.contains("not \"Hi.\""), "{message}");
}

#[test]
fn a_send_while_replies_are_unread_is_a_failure() {
    let message = divergence(json!([{ "send": "next" }]));
    assert!(message.contains("before this send"), "{message}");
}

#[test]
fn a_run_that_ends_early_and_a_session_that_ends_early_are_different_failures() {
    let early_run = divergence(json!([
        { "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } },
        { "send": "next" },
        { "expect": { "said": { "speaker": "Bob", "speech": "Goodbye." } } },
        { "send": "next" },
        { "expect": { "ended": {} } },
        { "expect": { "said": { "speaker": "Alice", "speech": "Again?" } } }
    ]));
    assert!(early_run.contains("the run ended early"), "{early_run}");
    let early_session = divergence(json!([{ "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } }]));
    assert!(early_session.contains("the session ended before the run did"), "{early_session}");
    let unread = divergence(json!([
        { "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } },
        { "send": "next" }
    ]));
    assert!(unread.contains("events unread"), "{unread}");
}

#[test]
fn an_expectation_nothing_answers_is_a_failure() {
    let message = divergence(json!([
        { "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } },
        { "expect": { "said": { "speaker": "Bob", "speech": "Goodbye." } } }
    ]));
    assert!(message.contains("said nothing more"), "{message}");
}

/// A case folder of its own under the system's temporary folder.
fn case(name: &str, fixture: serde_json::Value, playbook: Option<&str>) -> Case {
    let dir = std::env::temp_dir().join(format!("stagehand-harness-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    std::fs::write(dir.join("fixture.json"), fixture.to_string()).expect("writable");
    if let Some(playbook) = playbook {
        std::fs::write(dir.join("playbook.json"), playbook).expect("writable");
    }
    Case { name: name.to_owned(), dir }
}

#[test]
fn a_wrong_verdict_diverges_and_a_malformed_fixture_is_broken() {
    let accepts = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "verdict": "accept" });
    let outcome = Harness::new().run(&case("wrong-verdict", accepts, Some("{ not json")));
    assert!(matches!(outcome, Outcome::Diverged(_)), "{outcome}");
    let misspelt = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "verdit": "accept" });
    let outcome = Harness::new().run(&case("misspelt", misspelt, Some("{}")));
    assert!(matches!(outcome, Outcome::Broken(ref why) if why.contains("verdit")), "{outcome}");
}

#[test]
fn a_missing_playbook_is_compiled_from_source_when_a_compiler_is_given() {
    let fixture = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "session": [
        { "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } },
        { "send": "next" },
        { "expect": { "said": { "speaker": "Bob", "speech": "Goodbye." } } },
        { "send": "next" },
        { "expect": { "ended": {} } }
    ] });
    let without = case("no-playbook", fixture.clone(), None);
    assert!(matches!(Harness::new().run(&without), Outcome::NotYetPlayable(_)));
    let with = case("compiled", fixture, None);
    std::fs::write(with.dir.join("source.dialogue.md"), "Alice: Hello.\n\nBob: Goodbye.\n").expect("writable");
    let compiler = Arc::new(|source: &str, _: &str| {
        assert!(source.contains("Alice: Hello."));
        Ok(linear())
    });
    assert_eq!(Harness::new().with_compiler(compiler).run(&with), Outcome::Conformed);
}

#[test]
fn a_describe_send_is_not_yet_playable() {
    let fixture = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "session": [
        { "send": "describe" }
    ] });
    let outcome = Harness::new().run(&case("describe", fixture, Some(&write(&linear()))));
    assert!(matches!(outcome, Outcome::NotYetPlayable(ref needs) if needs[0].contains("describe")), "{outcome}");
}

#[test]
fn final_claims_are_held_to_what_the_engine_observes() {
    // The runner observes nothing, so any final claim diverges.
    let playbook = linear();
    let mut engine = RunnerEngine::new(&playbook, 0);
    let turns = session(json!([
        { "expect": { "said": { "speaker": "Alice", "speech": "Hello." } } },
        { "send": "next" },
        { "expect": { "said": { "speaker": "Bob", "speech": "Goodbye." } } },
        { "send": "next" },
        { "expect": { "ended": {} } }
    ]));
    let claims = json!({ "variables": { "gold": 5 } });
    assert_eq!(hold(&turns, &mut engine), Ok(()));
    assert!(hold_final(&claims, None, turns.len()).is_err());
    assert_eq!(hold_final(&claims, Some(json!({ "variables": { "gold": 5.0, "x": 1 } })), 5), Ok(()));
}
