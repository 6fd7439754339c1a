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

/// A host-script fixture for the `linear-speech` playbook.
fn hosted(name: &str, steps: serde_json::Value) -> Outcome {
    let fixture = json!({ "name": "n", "playbook": "playbook.json", "because": "b",
                          "host": { "sessionId": "h", "startedAt": 7, "steps": steps } });
    Harness::new().run(&case(name, fixture, Some(&write(&linear()))))
}

#[test]
fn a_faithful_host_script_holds() {
    let outcome = hosted(
        "host-faithful",
        json!([
            { "opening": [{ "type": "said", "speaker": "Alice", "text": "Hello." }] },
            { "describe": { "status": "active", "atRest": true, "actions": [{ "id": "next", "label": "Next" }] } },
            { "apply": { "action": "next", "key": "k1", "now": 8,
                         "receipt": { "disposition": "executed", "outcome": "awaiting" } } },
            { "snapshot": "one" },
            { "restore": "one" },
            { "apply": { "action": "next", "key": "k1", "now": 9, "receipt": "recorded" } },
            { "dispose": { "now": 10 } },
            { "trace": [
                { "sequence": 1, "type": "session.started", "timestamp": 7 },
                { "sequence": 2, "type": "apply.started", "callId": "apply-1", "timestamp": 8 },
                { "sequence": 3, "type": "apply.finished", "callId": "apply-1", "timestamp": 8 },
                { "sequence": 4, "type": "session.disposed", "timestamp": 10 }
            ] }
        ]),
    );
    assert_eq!(outcome, Outcome::Conformed);
}

#[test]
fn each_host_claim_that_does_not_hold_diverges_at_its_step() {
    let cases = [
        (json!([{ "describe": { "status": "done" } }]), "at host step 0: view.status"),
        (json!([{ "describe": { "actions": [] } }]), "claimed 0 item(s)"),
        (
            json!([{ "apply": { "action": "next", "key": "k", "receipt": { "disposition": "rejected" } } }]),
            "receipt.disposition",
        ),
        (
            json!([
                { "apply": { "action": "next", "key": "k" } },
                { "apply": { "action": "undo", "key": "k", "receipt": "recorded" } }
            ]),
            "not the one recorded",
        ),
        (json!([{ "trace": [] }]), "the trace has 1 new record(s), not 0"),
        (json!([{ "trace": [{ "timestamp": 8 }] }]), "trace line 1.timestamp"),
        (json!([{ "opening": [] }]), "opening"),
    ];
    for (i, (steps, expected)) in cases.into_iter().enumerate() {
        let outcome = hosted(&format!("host-diverges-{i}"), steps);
        assert!(matches!(&outcome, Outcome::Diverged(why) if why.contains(expected)), "{i}: {outcome}");
    }
}

#[test]
fn a_malformed_host_script_is_a_broken_case() {
    let cases = [
        (json!([{ "sing": {} }]), "unknown host step `sing`"),
        (json!([{ "restore": "never" }]), "no earlier step takes a snapshot named \"never\""),
        (json!([{ "apply": { "action": "next", "key": "k", "receipt": "recorded" } }]), "no earlier step uses"),
        (json!([{ "describe": { "colour": "red" } }]), "unknown property `colour`"),
        (json!([{ "apply": { "action": "next", "key": "k", "now": -1 } }]), "now"),
        (json!([]), "a non-empty array of steps"),
    ];
    for (i, (steps, expected)) in cases.into_iter().enumerate() {
        let outcome = hosted(&format!("host-broken-{i}"), steps);
        assert!(matches!(&outcome, Outcome::Broken(why) if why.contains(expected)), "{i}: {outcome}");
    }
    let no_session = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "final": {},
                             "host": { "steps": [{ "dispose": {} }] } });
    assert!(Fixture::parse(&no_session.to_string()).is_err(), "final claims need a session");
}

#[test]
fn the_host_script_in_the_readme_reads() {
    let readme = std::fs::read_to_string(stagehand_conformance::repository_root().join("conformance/README.md"))
        .expect("conformance/README.md");
    let block = readme.split("```json\n").nth(1).and_then(|rest| rest.split("```").next()).expect("a JSON example");
    let fixture = format!(r#"{{"name": "n", "playbook": "playbook.json", "because": "b", {block}}}"#);
    match Fixture::parse(&fixture).expect("the example reads").kind {
        FixtureKind::Playable { session: None, host: Some(host) } => assert_eq!(host.steps.len(), 9),
        other => panic!("{other:?}"),
    }
    let outcome = hosted(
        "readme",
        serde_json::from_str::<serde_json::Value>(&format!("{{{block}}}")).unwrap()["host"]["steps"].clone(),
    );
    assert!(matches!(outcome, Outcome::Diverged(_)), "the example is about another document: {outcome}");
}

#[test]
fn an_agent_scenario_is_found_and_played_only_by_a_plugged_in_runner() {
    let dir = std::env::temp_dir().join(format!("stagehand-scenario-{}", std::process::id()));
    let case_dir = dir.join("a-scenario");
    std::fs::create_dir_all(&case_dir).expect("writable");
    std::fs::write(case_dir.join("case.json"), "{}").expect("writable");
    let cases = stagehand_conformance::discover(std::slice::from_ref(&dir)).expect("discovered");
    assert_eq!(cases.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["a-scenario"]);

    let outcome = Harness::new().run(&cases[0]);
    assert!(matches!(&outcome, Outcome::NotYetPlayable(needs) if needs[0].contains("case.json")), "{outcome:?}");
    let passing = Harness::new().with_scenarios(Arc::new(|_: &std::path::Path| Ok(())));
    assert_eq!(passing.run(&cases[0]), Outcome::Conformed);
    let failing =
        Harness::new().with_scenarios(Arc::new(|_: &std::path::Path| Err(vec!["step 2: the log differs".to_owned()])));
    assert!(matches!(failing.run(&cases[0]), Outcome::Diverged(why) if why.contains("step 2")));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_fixture_marked_as_utf8_reads_as_the_unmarked_one() {
    // An editor that writes a byte-order mark must not turn a fixture into a fixture bug; the
    // playbook beside it is read past the mark too.
    let fixture = json!({ "name": "n", "playbook": "playbook.json", "because": "b", "verdict": "accept" }).to_string();
    let marked = Fixture::parse(&format!("\u{feff}{fixture}")).expect("a marked fixture reads");
    assert!(matches!(marked.kind, FixtureKind::Readable { accept: true }));
}

/// A trace claim may name every member the README and the trace schema list, `engine` among
/// them (`null` claims a host record, which has none).
#[test]
fn a_trace_claim_may_name_engine() {
    let outcome = hosted(
        "host-engine-claim",
        json!([
            { "trace": [{ "sequence": 1, "type": "session.started", "engine": null }] }
        ]),
    );
    assert_eq!(outcome, Outcome::Conformed);
}
