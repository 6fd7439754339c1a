//! Scale: a 100,000-entry project loads, checks and plays under the default options, in XML and
//! JSON, with every conversation either small or one huge one. Work per entry must not depend on
//! the project's size: a per-entry scan of all entries makes the one-conversation check below
//! take minutes instead of about a second (the measured times are in BENCHMARKS.md).

mod common;

use common::big;
use stagehand_chatmapper::{check::check, load, ChatMapperEngine, Options};
use stagehand_runner::{Command, OwnedEvent};

const ENTRIES: usize = 100_000;

fn plays(text: &str, name: &str) {
    let project = load(text.as_bytes(), name).expect("the generated project loads");
    assert_eq!(project.conversations.iter().map(|c| c.entries.len()).sum::<usize>(), ENTRIES);
    let mut engine =
        ChatMapperEngine::new(project, Options::default()).expect("the default memory cap fits the project");
    let events = engine.send(Command::start());
    assert!(matches!(&events[..], [OwnedEvent::Said { .. }]), "{events:?}");
    let saved = engine.snapshot().expect("a 100k-entry playthrough saves");
    engine.send(Command::Next);
    engine.restore(&saved).expect("and restores");
    assert!(engine.take_log().is_empty(), "nothing failed");
}

#[test]
fn a_100k_entry_json_project_in_one_conversation_checks_and_plays() {
    let text = big::json(ENTRIES, ENTRIES);
    let project = load(text.as_bytes(), "big.json").expect("it loads");
    // A guard against a check that scans every entry per entry, not a speed test: that scan took
    // 17–22 s in a release build and minutes in this one; a linear check takes about a second in
    // release, a few in debug. The bound is generous so a loaded machine never trips it.
    let began = std::time::Instant::now();
    let findings = check(&project);
    let took = began.elapsed();
    assert!(took < std::time::Duration::from_secs(120), "checking 100k entries took {took:?}");
    assert!(findings.is_empty(), "{} findings, the first {:?}", findings.len(), findings.first());
    plays(&text, "big.json");
}

#[test]
fn an_xml_project_in_many_conversations_checks() {
    let text = big::xml(ENTRIES / 4, 100);
    let project = load(text.as_bytes(), "big.xml").expect("it loads");
    assert_eq!(project.conversations.len(), ENTRIES / 400);
    let findings = check(&project);
    assert!(findings.is_empty(), "{} findings, the first {:?}", findings.len(), findings.first());
}

/// The memory cap is what scripts may add beyond the project's own tables and chunks, so a
/// project of any size starts, and a script that hoards memory is still stopped.
#[test]
fn the_memory_cap_is_an_allowance_beyond_the_project() {
    let text = big::json(ENTRIES / 4, 100);
    let project = load(text.as_bytes(), "big.json").expect("it loads");
    let mut options = Options::default();
    options.limits.memory_bytes = 1 << 20;
    let mut engine = ChatMapperEngine::new(project.clone(), options).expect("a 1 MiB allowance fits any project");
    assert!(matches!(&engine.send(Command::start())[..], [OwnedEvent::Said { .. }]));

    let mut project = project;
    project.conversations[0].entries[1].user_script = "Hoard = string.rep(\"x\", 4 * 1024 * 1024)".into();
    let mut engine = ChatMapperEngine::new(project, options).expect("it is made");
    engine.send(Command::start());
    let log = engine.take_log().join("\n");
    assert!(log.contains("not enough memory"), "{log}");
}
