//! What an audit of the HTTP API found, each against the router in process.

mod support;

use axum::http::{Method, StatusCode};
use serde_json::json;
use stagehand_server::Limits;
use support::Local;

/// `GET /v1/sessions/{id}/trace` is "the trace as JSON lines" (docs/server.md): every line after
/// `after`, however long the session has run, not the first thousand of them.
#[tokio::test]
async fn the_trace_as_json_lines_is_whole_past_a_thousand_lines() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let (session, token) = local.session(&document).await;
    let path = format!("/v1/sessions/{session}/apply");
    // Each apply writes a pair of trace lines: 520 of them pass a thousand lines.
    for n in 0..520 {
        let anchor = if n % 2 == 0 { "the-party" } else { "the-club-fair" };
        let body = json!({"actionId": format!("jump:{anchor}")}).to_string();
        let answer = local.call(Method::POST, &path, Some(&token), Some(&format!("k{n}")), body).await;
        assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    }
    let trace = format!("/v1/sessions/{session}/trace");
    let answer = local.call(Method::GET, &trace, Some(&token), None, "").await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    let sequences: Vec<u64> = answer
        .body
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("a JSON line")["sequence"].as_u64().unwrap())
        .collect();
    assert!(sequences.len() > 1040, "{} lines", sequences.len());
    assert!(sequences.iter().enumerate().all(|(i, s)| *s == i as u64 + 1), "not contiguous from 1");
    // After a sequence number: the rest, whole.
    let answer = local.call(Method::GET, &format!("{trace}?after=7"), Some(&token), None, "").await;
    assert_eq!(answer.body.lines().count(), sequences.len() - 7);
}

/// Text sent when no question is pending is refused in words a client can show: not as an
/// answer to a question named `""` (the id the server had filled in for "the first pending one").
#[tokio::test]
async fn input_with_no_question_pending_says_so_without_an_empty_name() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let (session, token) = local.session(&document).await;
    let path = format!("/v1/sessions/{session}/input");
    let answer = local.call(Method::POST, &path, Some(&token), Some("k1"), json!({"text": "yes"}).to_string()).await;
    assert_eq!(answer.status, StatusCode::CONFLICT, "{}", answer.body);
    let detail = answer.json()["detail"].as_str().unwrap_or("").to_owned();
    assert!(detail.contains("no question is pending") && !detail.contains("\"\""), "{detail}");
}

/// The authentication scheme is a case-insensitive token (RFC 9110 §11.1): `BEARER` and
/// `Bearer` name the same scheme, and a token after either opens the session.
#[tokio::test]
async fn the_bearer_scheme_is_read_in_any_case() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let (session, token) = local.session(&document).await;
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let request = axum::http::Request::builder()
            .uri(format!("/v1/sessions/{session}"))
            .header("authorization", format!("{scheme} {token}"))
            .body(axum::body::Body::empty())
            .expect("a request");
        let answer = local.send(request).await;
        assert_eq!(answer.status, StatusCode::OK, "{scheme}: {}", answer.body);
    }
}

/// An upload that does not open is `422` "with the diagnostics (file, line, column, code)"
/// (issue 14), each a `Diagnostic` as the OpenAPI document requires one: a playbook or a project
/// that does not read has one error placed where the reader stopped, not an empty list.
#[tokio::test]
async fn an_upload_that_does_not_read_has_a_placed_diagnostic() {
    let local = Local::start(Limits::default()).await;
    let deep = "<a>".repeat(100);
    let cases: [(&str, &[u8], u64, u64); 3] = [
        ("broken.json", b"{\"format\":\n  {\"version\": 0,,", 2, 17),
        ("deep.xml", deep.as_bytes(), 1, 193),
        ("bytes.json", b"{\"x\": \"\xff\"}", 1, 1),
    ];
    for (name, body, line, column) in cases {
        let answer = local.call(Method::POST, &format!("/v1/documents?name={name}"), None, None, body.to_vec()).await;
        assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", answer.body);
        let found = answer.json()["diagnostics"].clone();
        assert_eq!(found.as_array().map(Vec::len), Some(1), "{name}: {}", answer.body);
        let diagnostic = &found[0];
        assert_eq!(diagnostic["file"], name, "{diagnostic}");
        assert_eq!(
            (diagnostic["line"].as_u64(), diagnostic["column"].as_u64()),
            (Some(line), Some(column)),
            "{diagnostic}"
        );
        assert_eq!(diagnostic["severity"], "error", "{diagnostic}");
        assert!(diagnostic["code"].is_string() && diagnostic["message"].as_str().is_some_and(|m| !m.is_empty()));
        assert!(!diagnostic["message"].as_str().unwrap_or("").starts_with(name), "{diagnostic}");
    }
}

/// "Every error is `application/problem+json`" (docs/server.md): an id in the path that is not
/// UTF-8 once its percent-escapes are decoded (`%ff`) was answered by the framework's own
/// `400 text/plain` "Invalid URL", on every route that takes an id.
#[tokio::test]
async fn an_id_that_is_not_text_is_a_problem() {
    let local = Local::start(Limits::default()).await;
    for (method, path) in [
        (Method::GET, "/v1/sessions/%ff"),
        (Method::DELETE, "/v1/sessions/%ff"),
        (Method::GET, "/v1/sessions/%ff/trace"),
        (Method::GET, "/v1/sessions/%ff/snapshot"),
        (Method::POST, "/v1/sessions/%ff/apply"),
        (Method::POST, "/v1/sessions/%ff/input"),
        (Method::GET, "/v1/documents/%C3%28/graph"),
    ] {
        let answer = local.call(method.clone(), path, Some("sht_x"), Some("k"), "{}").await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{method} {path}: {}", answer.body);
        assert_eq!(answer.media, "application/problem+json", "{method} {path}");
        assert_eq!(answer.problem(), "urn:stagehand:problem:invalid-request", "{method} {path}");
    }
}
