//! Agent machines as documents: `kind` tells them (JSON by shape, TOML by name), `Document`
//! opens them and serves `AnySession`s over the agent engine — Boss text through `input`, port
//! calls answered through `answer` (H45), the `retry:` action in the view (H46), a failure as a
//! `failed` receipt (H47), snapshots restored through the document — and `check` and `draw`.

mod agent_support;

use std::path::Path;

use agent_support::{open, ports, MACHINE};
use stagehand_agents::machine::{read_toml, write_toml};
use stagehand_documents::check::check_machine;
use stagehand_documents::{kind, Document, Format, Kind, OpenOptions};
use stagehand_protocol::{PortAnswer, PortCall, Receipt};
use stagehand_session::host::{AnySession, Pending};

fn json_machine() -> String {
    serde_json::to_string(&read_toml(MACHINE).unwrap()).unwrap()
}

/// Answers port calls with `host` until the session waits on something else.
fn answer_all(session: &mut dyn AnySession, mut host: impl FnMut(&PortCall) -> PortAnswer) {
    for n in 0..50 {
        let Pending::Call { call } = session.pending().clone() else { return };
        assert!(!session.describe().at_rest, "a call is not at rest");
        let key = format!("k{n}-{}", session.receipt_count());
        match session.answer(host(&call), &key, 7) {
            Receipt::Executed { .. } | Receipt::Failed { .. } => {}
            Receipt::Rejected { reason } => panic!("{reason}"),
        }
    }
}

#[test]
fn machines_are_told_by_shape_and_by_name() {
    assert_eq!(kind(Path::new("m.toml"), MACHINE.as_bytes()), Kind::Machine);
    assert_eq!(kind(Path::new("m.json"), json_machine().as_bytes()), Kind::Machine);
    assert_eq!(stagehand_documents::recognised(json_machine().as_bytes()), Some(Kind::Machine));
    let opened = Document::open("m.json", json_machine().as_bytes(), &OpenOptions::default()).unwrap();
    assert_eq!(opened.kind(), Kind::Machine);
    assert_eq!(opened.fingerprint(), open().fingerprint(), "the same machine in either form");
    let bad = Document::open("m.json", br#"{"id": "x", "initial": "nowhere", "states": []}"#, &OpenOptions::default());
    let message = bad.expect_err("refused").to_string();
    assert!(message.starts_with("m.json: not an agent machine:"), "{message}");
}

#[test]
fn a_session_takes_the_task_as_input_and_port_answers_to_its_end() {
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    let view = session.describe();
    assert_eq!(view.state_id, "ready");
    assert_eq!(view.pending_questions[0].question_id, "task");
    let receipt = session.input("task", "a poem", "task", 2);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    assert!(matches!(session.pending(), Pending::Call { .. }));
    // An answer of the wrong kind is rejected and not recorded.
    let wrong = session.answer(PortAnswer::Judge { text: "{}".into() }, "wrong", 3);
    assert!(matches!(wrong, Receipt::Rejected { .. }), "{wrong:?}");
    assert!(!session.has_key("wrong"));
    answer_all(session.as_mut(), |call| ports(call, false));
    assert_eq!(session.pending(), &Pending::Ended);
    assert_eq!(session.describe().state_id, "approved");
}

#[test]
fn a_failure_is_a_failed_receipt_and_retry_is_advertised_and_survives_a_restore() {
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    session.input("task", "a poem", "task", 2);
    let mut last = None;
    for n in 0..10 {
        let Pending::Call { call } = session.pending().clone() else { break };
        last = Some(session.answer(ports(&call, true), &format!("k{n}"), 3));
    }
    assert!(
        matches!(&last, Some(Receipt::Failed { error }) if error.contains("run-failed") && error.contains("away")),
        "{last:?}"
    );
    let view = session.describe();
    assert_eq!(view.state_id, "failed");
    let retry = view.actions.iter().find(|a| a.id == "retry:START").unwrap_or_else(|| panic!("{:?}", view.actions));
    assert!(retry.label.starts_with("Retry: "));
    // Parked and restored through the document: the same view, and the retry executes once.
    let snapshot = session.snapshot_value().unwrap();
    let mut restored = document.restore(snapshot).unwrap();
    assert_eq!(restored.describe(), view);
    let receipt = restored.apply("retry:START", "again", 4);
    assert!(matches!(receipt, Receipt::Executed { .. }), "{receipt:?}");
    assert_eq!(restored.apply("retry:START", "again", 5), receipt, "the same key replays its receipt");
    answer_all(restored.as_mut(), |call| ports(call, false));
    assert_eq!(restored.pending(), &Pending::Ended);
}

#[test]
fn check_reports_the_readers_rule_and_the_analyses_and_draw_renders_states() {
    assert!(check_machine("m.toml", MACHINE.as_bytes()).is_empty());
    let mut machine = read_toml(MACHINE).unwrap();
    machine.states.retain(|s| s.id != "approved");
    let refused = check_machine("m.toml", write_toml(&machine).unwrap().as_bytes());
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].json["rule"], "missing-target", "{:?}", refused[0].json);
    let document = open();
    let dot = document.draw(Format::Dot).unwrap();
    assert!(dot.contains("label=\"approved\""), "{dot}");
    let mermaid = document.draw(Format::Mermaid).unwrap();
    assert!(mermaid.contains("-.->|\"error\"|"), "the implied error path is dashed: {mermaid}");
}

/// A machine waiting on the Boss is at rest: the contract's quiescent state "includes a state
/// awaiting a Boss reply" (CONTRACT.md §1.6), it is a safe capture point (§1.7), and its actions
/// (`retry:`, `jump:`) are derived only there (§1.11). So the view says `atRest` wherever the
/// Boss is asked, at the opening and at `failed` with `retry:START` offered (H60).
#[test]
fn a_machine_waiting_on_the_boss_is_at_rest() {
    let document = open();
    let mut session = document.start("s", 0, 1).unwrap();
    let view = session.describe();
    assert_eq!(view.pending_questions[0].question_id, "task");
    assert!(view.at_rest, "{view:?}");
    assert!(session.snapshot_value().is_ok(), "a safe capture point");
    session.input("task", "a poem", "task", 2);
    answer_all(session.as_mut(), |call| ports(call, true));
    let view = session.describe();
    assert_eq!(view.state_id, "failed");
    assert!(view.actions.iter().any(|a| a.id == "retry:START"), "{view:?}");
    assert!(view.at_rest, "{view:?}");
}
