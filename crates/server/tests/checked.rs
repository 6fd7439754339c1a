//! An upload answers what `stagehand check` finds in the document, for every kind (decision
//! S37): a ChatMapper project's findings and a script's graph lints came back as
//! `diagnostics: []` (a script's answer held only its compiler's warnings). The documents
//! crate's check is the oracle: each of its findings is a diagnostic of the answer, with its code,
//! severity and message, placed as the API's `Diagnostic` requires. In process, over SQLite.

mod support;

use axum::http::{Method, StatusCode};
use serde_json::Value;
use stagehand_documents::check::{check_project, check_script, Finding};
use stagehand_server::Limits;
use support::{example, Local};

/// What an upload of `bytes` named `name` answers: its diagnostics.
async fn uploaded(server: &Local, name: &str, bytes: Vec<u8>) -> Vec<Value> {
    let answer = server.call(Method::POST, &format!("/v1/documents?name={name}"), None, None, bytes).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    answer.json()["diagnostics"].as_array().expect("diagnostics").clone()
}

/// Each finding is among the diagnostics, spelled as the API spells one.
fn carried(findings: &[Finding], diagnostics: &[Value]) {
    assert!(!findings.is_empty(), "the document is meant to have findings");
    for found in findings {
        let same = diagnostics.iter().find(|d| {
            d["code"] == found.json["code"]
                && d["message"] == found.json["message"]
                && d["severity"] == found.json["severity"]
        });
        let same = same.unwrap_or_else(|| panic!("{} not in {diagnostics:?}", found.json));
        assert!(same["line"].is_u64() && same["column"].is_u64(), "placed: {same}");
        assert!(same["file"].is_string(), "{same}");
    }
}

#[tokio::test]
async fn a_chatmapper_upload_carries_its_check_findings() {
    let server = Local::start(Limits::default()).await;
    let bytes = std::fs::read(example("the-lighthouse.xml")).expect("the example");
    let diagnostics = uploaded(&server, "the-lighthouse.xml", bytes.clone()).await;
    carried(&check_project("the-lighthouse.xml", &bytes), &diagnostics);
}

#[tokio::test]
async fn a_script_upload_carries_its_graph_lints_where_they_are_written() {
    let server = Local::start(Limits::default()).await;
    let script = "Ada: Hello.\n\n=> [Away](#away)\n\nAda: Never said.\n\n# Away\n\nAda: Bye.\n";
    let diagnostics = uploaded(&server, "lost.dialogue.md", script.as_bytes().to_vec()).await;
    let checked = check_script("lost.dialogue.md", script, &Default::default());
    carried(&checked.findings, &diagnostics);
    let lost = diagnostics.iter().find(|d| d["code"] == "graph").expect("the lint");
    assert_eq!((lost["line"].as_u64(), lost["column"].as_u64()), (Some(5), Some(1)), "{lost}");
}
