//! Content negotiation on the routes that answer in more than one media type (decision S36,
//! RFC 9110 §12.5.1): the trace (JSON lines or server-sent events) and a document's graph (its
//! drawing as text, or JSON). Quality values decide, `q=0` refuses a type, and a request that
//! accepts none of them is `406 not-acceptable`. In process, over a SQLite store.

mod support;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use stagehand_server::Limits;
use support::{Answer, Local};

async fn get(server: &Local, path: &str, token: Option<&str>, accept: &str) -> Answer {
    let mut request = Request::builder().method(Method::GET).uri(path).header(header::ACCEPT, accept);
    if let Some(token) = token {
        request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
    }
    server.send(request.body(Body::empty()).expect("a request")).await
}

#[tokio::test]
async fn the_trace_follows_the_weights_of_accept() {
    let server = Local::start(Limits::default()).await;
    let document = server.upload("club-fair.dialogue.md").await;
    let (id, token) = server.session(&document).await;
    let path = format!("/v1/sessions/{id}/trace");
    let token = Some(token.as_str());
    for (accept, media) in [
        ("*/*", "application/x-ndjson"),
        ("text/event-stream", "text/event-stream"),
        ("application/x-ndjson;q=0.5, text/event-stream;q=0.9", "text/event-stream"),
        ("text/event-stream;q=0.5, application/x-ndjson;q=0.9", "application/x-ndjson"),
        ("text/event-stream;q=0, */*", "application/x-ndjson"),
        ("*/*;q=0.1, text/event-stream", "text/event-stream"),
        ("application/json;q=0.5, application/x-ndjson;q=0.9", "application/x-ndjson"),
    ] {
        let answer = get(&server, &path, token, accept).await;
        assert_eq!(answer.status, StatusCode::OK, "{accept}: {}", answer.body);
        assert!(answer.media.starts_with(media), "{accept}: {}", answer.media);
    }
    for accept in ["application/json", "*/*;q=0", "text/event-stream;q=0, application/x-ndjson;q=0"] {
        let answer = get(&server, &path, token, accept).await;
        assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE, "{accept}: {}", answer.body);
        assert_eq!(answer.problem(), "urn:stagehand:problem:not-acceptable", "{accept}");
    }
}

#[tokio::test]
async fn the_graph_follows_the_weights_of_accept() {
    let server = Local::start(Limits::default()).await;
    let document = server.upload("club-fair.dialogue.md").await;
    let path = format!("/v1/documents/{document}/graph");
    for (accept, media) in [
        ("application/json", "application/json"),
        ("application/json;q=0, */*", "text/vnd.graphviz"),
        ("application/json;q=0.2, text/*;q=0.5", "text/vnd.graphviz"),
        ("text/vnd.graphviz;q=0.5, application/json", "application/json"),
    ] {
        let answer = get(&server, &path, None, accept).await;
        assert_eq!(answer.status, StatusCode::OK, "{accept}: {}", answer.body);
        assert!(answer.media.starts_with(media), "{accept}: {}", answer.media);
    }
    let answer = get(&server, &format!("{path}?format=mermaid"), None, "text/vnd.graphviz").await;
    assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE, "{}", answer.body);
    assert_eq!(answer.problem(), "urn:stagehand:problem:not-acceptable");
}
