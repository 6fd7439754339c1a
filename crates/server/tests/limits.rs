//! The limits clients are held to (issue 14, item 4; decision S9): body sizes for documents and
//! for other requests separately, the per-session queue, a body that never finishes, a request
//! head that never finishes; the opened documents a process keeps (S30); a request line or head
//! too long for the HTTP layer (S40).

mod support;

use std::time::Duration;

use axum::body::Body;
use axum::http::{Method, StatusCode};
use serde_json::json;
use stagehand_server::Limits;
use support::{example, Local};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test]
async fn documents_and_other_bodies_have_limits_of_their_own() {
    let script = std::fs::read(example("club-fair.dialogue.md")).unwrap();
    let limits = Limits { document_bytes: script.len() + 16, request_bytes: 256, ..Limits::default() };
    let local = Local::start(limits).await;
    // The script fits the document limit though it is larger than the other bodies' limit.
    assert!(script.len() > 256);
    let document = local.upload("club-fair.dialogue.md").await;
    let too_big_document = [script.as_slice(), &[b'\n'; 64]].concat();
    let answer = local.call(Method::POST, "/v1/documents", None, None, too_big_document).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", answer.body);
    assert_eq!(answer.problem(), "urn:stagehand:problem:payload-too-large");
    // A new session may carry a snapshot (W16), so it takes the document limit too…
    let (session, token) = local.session(&document).await;
    let padded = json!({"documentId": document, "start": "x".repeat(300)}).to_string();
    let answer = local.call(Method::POST, "/v1/sessions", None, None, padded).await;
    assert_ne!(answer.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", answer.body);
    let padded = json!({"documentId": document, "start": "x".repeat(script.len() + 64)}).to_string();
    let answer = local.call(Method::POST, "/v1/sessions", None, None, padded).await;
    assert_eq!(answer.problem(), "urn:stagehand:problem:payload-too-large", "{}", answer.body);
    // …and other bodies 256 bytes.
    let long_action = json!({"actionId": "n".repeat(300)}).to_string();
    let path = format!("/v1/sessions/{session}/apply");
    let answer = local.call(Method::POST, &path, Some(&token), Some("k"), long_action).await;
    assert_eq!(answer.problem(), "urn:stagehand:problem:payload-too-large", "{}", answer.body);
}

#[tokio::test]
async fn a_session_takes_only_so_many_waiting_requests() {
    let local = Local::start(Limits { session_queue: 1, ..Limits::default() }).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let (session, token) = local.session(&document).await;
    let path = format!("/v1/sessions/{session}/apply");
    // One request holds the session's lane: the next is refused, not queued, and executes nothing.
    let held = local.state.lanes.enter(&session).await.expect("the lane is free");
    let answer =
        local.call(Method::POST, &path, Some(&token), Some("k1"), json!({"actionId": "done"}).to_string()).await;
    assert_eq!(answer.status, StatusCode::TOO_MANY_REQUESTS, "{}", answer.body);
    assert_eq!(answer.problem(), "urn:stagehand:problem:too-many-requests");
    drop(held);
    // Retried with the same key once the lane is free, it runs.
    let answer =
        local.call(Method::POST, &path, Some(&token), Some("k1"), json!({"actionId": "done"}).to_string()).await;
    assert!(answer.status == StatusCode::OK || answer.status == StatusCode::CONFLICT, "{}", answer.body);
    assert_ne!(answer.problem(), "urn:stagehand:problem:too-many-requests");
}

#[tokio::test]
async fn a_body_that_never_finishes_is_a_timeout_problem() {
    let local = Local::start(Limits { request_timeout: Duration::from_secs(1), ..Limits::default() }).await;
    let never = futures_util::stream::pending::<Result<Vec<u8>, std::io::Error>>();
    let request =
        axum::http::Request::builder().method(Method::POST).uri("/v1/sessions").body(Body::from_stream(never)).unwrap();
    let answer = tokio::time::timeout(Duration::from_secs(60), local.send(request)).await.expect("answered");
    assert_eq!(answer.status, StatusCode::REQUEST_TIMEOUT, "{}", answer.body);
    assert_eq!(answer.problem(), "urn:stagehand:problem:request-timeout");
}

#[tokio::test]
async fn a_request_head_that_never_finishes_loses_its_connection() {
    let local = Local::start(Limits { header_timeout: Duration::from_secs(1), ..Limits::default() }).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(stagehand_server::serve::serve_on(listener, local.state.clone(), async {
        let _ = stopped.await;
    }));
    // A whole request is answered on the same server.
    let mut whole = tokio::net::TcpStream::connect(address).await.unwrap();
    whole.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n").await.unwrap();
    let mut answered = String::new();
    tokio::time::timeout(Duration::from_secs(60), whole.read_to_string(&mut answered)).await.unwrap().unwrap();
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    // A head that stops halfway: the server closes the connection (it does not wait for ever).
    let mut slow = tokio::net::TcpStream::connect(address).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\nhost: x\r\n").await.unwrap();
    let mut rest = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(60), slow.read_to_end(&mut rest)).await;
    assert!(read.is_ok(), "the server still holds a connection whose head never finished");
    assert!(!String::from_utf8_lossy(&rest).contains("200 OK"), "{}", String::from_utf8_lossy(&rest));
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(60), server).await.expect("the server stops").unwrap();
}

#[tokio::test]
async fn a_compile_that_outlives_its_request_keeps_its_permit_until_it_ends() {
    // One compile at a time, and no time at all to compile in: every upload times out, but its
    // compile goes on in its thread. Guards against timed-out uploads piling up compiles (each
    // holding memory in proportion to its document) past `Limits::compiles`.
    let limits = Limits { compiles: 1, compile_timeout: Duration::ZERO, ..Limits::default() };
    let local = Local::start(limits).await;
    let script: String =
        (0..20_000).map(|i| format!("Alice: Line {i} of a long script, said plainly.\n")).collect::<String>();
    let answer = local.call(Method::POST, "/v1/documents?name=long.dialogue.md", None, None, script).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", answer.body);
    assert!(answer.body.contains("did not compile within"), "{}", answer.body);
    // The request is over; the compile is not, and it still holds the only permit.
    assert_eq!(local.state.compiling.available_permits(), 0, "a timed-out compile gave its permit back early");
    // It gives it back when it ends (a bounded wait; the compile is linear in the script).
    for _ in 0..600 {
        if local.state.compiling.available_permits() == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the compile never gave its permit back");
}

#[tokio::test]
async fn opened_documents_are_kept_within_a_budget_and_opened_again_when_needed() {
    // A budget smaller than any document: only the newest one opened is kept.
    let local = Local::start(Limits { documents_kept_bytes: 1, ..Limits::default() }).await;
    let script = local.upload("club-fair.dialogue.md").await;
    let (session, token) = local.session(&script).await;
    let project = local.upload("the-crossing.json").await;
    assert_eq!(local.state.documents.len(), 1, "the script was let go");
    // The script's session goes on: its document is opened again from the store.
    let view = local.call(Method::GET, &format!("/v1/sessions/{session}"), Some(&token), None, Vec::new()).await;
    assert_eq!(view.status, StatusCode::OK, "{}", view.body);
    let next = view.json()["view"]["actions"][0]["id"].as_str().expect("an action").to_owned();
    let applied = local
        .call(
            Method::POST,
            &format!("/v1/sessions/{session}/apply"),
            Some(&token),
            Some("k1"),
            json!({"actionId": next}).to_string(),
        )
        .await;
    assert_eq!(applied.status, StatusCode::OK, "{}", applied.body);
    // And a new session of the project, let go in turn, starts.
    let (other, _) = local.session(&project).await;
    assert!(!other.is_empty());
    assert_eq!(local.state.documents.len(), 1);
}

/// Sends `head` on a fresh connection to `address` and reads the answer whole (the server closes).
async fn raw(address: std::net::SocketAddr, head: &str) -> String {
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answered = Vec::new();
    tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut answered)).await.unwrap().unwrap();
    String::from_utf8_lossy(&answered).into_owned()
}

#[tokio::test]
async fn a_long_request_line_is_the_servers_problem_up_to_the_http_layers_limit() {
    // Decision S40: hyper refuses a request-target over 65 534 bytes itself, with a bare 414, before
    // any service of ours sees the request (and a head it cannot parse, with a bare 431); every
    // target it passes on is answered as a problem.
    let local = Local::start(Limits::default()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(stagehand_server::serve::serve_on(listener, local.state.clone(), async {
        let _ = stopped.await;
    }));
    let target = |len: usize| format!("/v1/sessions/{}", "x".repeat(len - "/v1/sessions/".len()));
    let head = |target: &str| format!("GET {target} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
    // At the limit: the server's own answer, a problem (401: a session's route wants its token).
    let answered = raw(address, &head(&target(65_534))).await;
    assert!(answered.starts_with("HTTP/1.1 401"), "{}", &answered[..answered.len().min(300)]);
    assert!(answered.to_ascii_lowercase().contains("content-type: application/problem+json"), "{answered}");
    // Past it: the HTTP layer's 414, with no body (documented in docs/server.md).
    let answered = raw(address, &head(&target(65_535))).await;
    assert!(answered.starts_with("HTTP/1.1 414"), "{answered}");
    assert!(answered.ends_with("\r\n\r\n"), "no body: {answered}");
    // So is a head of more headers than it parses (100): its bare 431.
    let headers: String = (0..120).map(|i| format!("x-h{i}: v\r\n")).collect();
    let answered = raw(address, &format!("GET /healthz HTTP/1.1\r\nhost: x\r\n{headers}\r\n")).await;
    assert!(answered.starts_with("HTTP/1.1 431"), "{answered}");
    assert!(answered.ends_with("\r\n\r\n"), "no body: {answered}");
    let _ = stop.send(());
    tokio::time::timeout(Duration::from_secs(60), server).await.expect("the server stops").unwrap();
}
