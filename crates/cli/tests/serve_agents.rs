//! Agent playbook sessions over HTTP through the real binary (issue 14: "agent playbook sessions
//! join once that engine exists"; decisions S19, S21–S24): `stagehand serve` with the example's
//! shell-script players (`examples/agents/`), each wrapped to append a line to a counter file on
//! every call, so a replayed key is seen to call no port again. On SQLite and on PostgreSQL
//! (when `STAGEHAND_TEST_POSTGRES` is set; otherwise a printed notice).

#[macro_use]
mod serve_support;

use std::path::Path;

use serde_json::{json, Value};
use serve_support::*;

const MACHINE: &str = "agents/write-review-revise.toml";

on_both!(an_agent_session_plays_to_its_end_and_a_replayed_key_calls_no_port);
on_both!(a_machine_whose_ports_are_unbound_is_refused_at_create);

/// The example's script `name`, wrapped to append a line to `counter` before it runs.
fn counted(name: &str, counter: &Path) -> String {
    let script = example(&format!("agents/{name}.sh"));
    format!("exec:echo {name} >> '{}'; sh '{}'", counter.display(), script.display())
}

/// How many port calls the players and the judge have answered.
fn calls(counter: &Path) -> usize {
    std::fs::read_to_string(counter).map(|text| text.lines().count()).unwrap_or(0)
}

/// Sends `text` as the Boss's input under `key`.
async fn boss(client: &reqwest::Client, server: &Server, session: &Made, key: &str, text: &str) -> Answer {
    ask(client, server, session, key, &Ask::Text(text.to_owned())).await.unwrap()
}

/// Uploads the example machine: `201`, kind `machine`.
async fn upload_machine(client: &reqwest::Client, server: &Server) -> String {
    let bytes = std::fs::read(example(MACHINE)).unwrap();
    let answer = send(client.post(server.url("/v1/documents")).header("content-type", "application/toml").body(bytes))
        .await
        .unwrap();
    assert_eq!(answer.status, 201, "{}", answer.body);
    assert_eq!(answer.json()["kind"], "machine", "{}", answer.body);
    answer.json()["documentId"].as_str().unwrap().to_owned()
}

fn said(transcript: &Value) -> String {
    transcript.as_array().unwrap().iter().filter_map(|line| line["text"].as_str()).collect::<Vec<_>>().join("\n")
}

async fn an_agent_session_plays_to_its_end_and_a_replayed_key_calls_no_port(database: Database) {
    let counter = database.folder().join("calls.txt");
    let (writer, reviewer, judge) =
        (counted("writer", &counter), counted("reviewer", &counter), counted("judge", &counter));
    let (writer, reviewer) = (format!("writer={writer}"), format!("reviewer={reviewer}"));
    let server =
        Server::start_with(&database, &["--player", &writer, "--player", &reviewer, "--judge", judge.as_str()]);
    let client = client();
    let document = upload_machine(&client, &server).await;
    let session = create(&client, &server, &document, 3).await;
    // At rest, waiting for the Boss's task; no port was called.
    let shown = show(&client, &server, &session).await.unwrap();
    assert_eq!(shown["view"]["status"], "active", "{shown}");
    assert_eq!(shown["view"]["stateId"], "ready", "{shown}");
    assert_eq!(calls(&counter), 0);

    // The task: the writer drafts, the reviewer asks the Boss about the title, and the session
    // rests again, waiting for the Boss's reply.
    let first = boss(&client, &server, &session, "task", "an essay with a title").await;
    assert_eq!(first.status, 200, "{}", first.body);
    let body = first.json();
    assert_eq!(body["receipt"]["disposition"], "executed", "{body}");
    assert_eq!(body["view"]["stateId"], "awaitBossReply", "{body}");
    assert_eq!(body["view"]["pendingQuestions"][0]["questionId"], "review", "{body}");
    assert_eq!(body["version"], 2, "{body}");
    let driven: Vec<&str> = body["driven"].as_array().unwrap().iter().filter_map(|e| e["text"].as_str()).collect();
    assert!(driven.contains(&"Should the title be formal or playful?"), "{body}");
    let called = calls(&counter);
    assert!(called >= 2, "the writer and the reviewer were called: {called}");

    // The same key again: the same bytes, and no port is called again.
    let again = boss(&client, &server, &session, "task", "an essay with a title").await;
    assert_eq!((again.status, &again.body), (first.status, &first.body), "the same key, the same answer");
    assert_eq!(calls(&counter), called, "a replayed key calls no port");
    // The same key with other text is refused, and calls nothing.
    let other = boss(&client, &server, &session, "task", "a sonnet").await;
    assert_eq!(other.status, 422, "{}", other.body);
    assert_eq!(other.problem_type(), "urn:stagehand:problem:idempotency-key-reused");
    assert_eq!(calls(&counter), called);

    // The view and the transcript: the reviewer's question, said by the reviewer.
    let shown = show(&client, &server, &session).await.unwrap();
    assert_eq!(shown["version"], 2);
    assert_eq!(shown["view"], body["view"], "{shown}");
    let question = shown["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .find(|line| line["text"] == "Should the title be formal or playful?")
        .unwrap_or_else(|| panic!("the question is in the transcript: {shown}"));
    assert_eq!(question["speaker"], "reviewer", "{shown}");

    // The Boss's reply: the reviewer asks for changes, the writer revises, the reviewer approves.
    let last = boss(&client, &server, &session, "reply", "Playful, please.").await;
    assert_eq!(last.status, 200, "{}", last.body);
    let ended = last.json();
    assert_eq!(ended["view"]["status"], "done", "{ended}");
    let after = calls(&counter);
    assert!(after > called, "the reply called the players again");
    let replayed = boss(&client, &server, &session, "reply", "Playful, please.").await;
    assert_eq!((replayed.status, &replayed.body), (last.status, &last.body));
    assert_eq!(calls(&counter), after, "a replayed key calls no port");

    let shown = show(&client, &server, &session).await.unwrap();
    let transcript = &shown["transcript"];
    assert!(said(transcript).contains("Draft 2: an essay with a title"), "{shown}");
    assert_eq!(transcript.as_array().unwrap().last().unwrap()["type"], "ended", "{shown}");
    // The trace: the Boss's two turns received once each, every port call answered in order.
    let records = trace(&client, &server, &session).await;
    let sequences: Vec<u64> = records.iter().map(|r| r["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (1..=records.len() as u64).collect::<Vec<_>>(), "no gap");
    for key in ["task", "reply"] {
        let received = records.iter().filter(|r| r["type"] == "input.received" && r["payload"]["key"] == key).count();
        assert_eq!(received, 1, "the key {key} executed once");
    }
    // An ended session takes no more input.
    let late = boss(&client, &server, &session, "late", "one more").await;
    assert_eq!(late.status, 409, "{}", late.body);
    assert_eq!(calls(&counter), after);
    drop(server);
    database.finish().await;
}

async fn a_machine_whose_ports_are_unbound_is_refused_at_create(database: Database) {
    let writer = format!("writer=exec:sh '{}'", example("agents/writer.sh").display());
    let server = Server::start_with(&database, &["--player", &writer]);
    let client = client();
    let document = upload_machine(&client, &server).await;
    let body = json!({"documentId": document}).to_string();
    let answer = send(client.post(server.url("/v1/sessions")).header("content-type", "application/json").body(body))
        .await
        .unwrap();
    assert_eq!(answer.status, 422, "{}", answer.body);
    assert_eq!(answer.problem_type(), "urn:stagehand:problem:ports-unbound");
    let problem = answer.json();
    let detail = problem["detail"].as_str().unwrap();
    assert!(detail.contains("--player reviewer=…") && detail.contains("--judge …"), "{detail}");
    assert!(!detail.contains("writer"), "the writer is bound: {detail}");
    assert_eq!(problem["unbound"], json!(["--player reviewer=…", "--judge …"]));
    drop(server);
    database.finish().await;
}
