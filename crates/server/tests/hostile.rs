//! Hostile clients (issue 14, item 4): random JSON and random bytes, posted with random headers
//! and queries to every route of the route table, never make the server panic or answer a
//! server error, and every error is a problem (decision S9). In process: the router itself,
//! over a SQLite store.

mod support;

use axum::body::Body;
use axum::http::{header, HeaderValue, Method, Request};
use proptest::prelude::*;
use serde_json::{json, Value};
use stagehand_server::{routes, Limits};
use support::Local;

/// Any JSON value, a few levels deep, with the keys the routes take among others.
fn any_json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        Just("documentId".to_owned()),
        Just("seed".to_owned()),
        Just("start".to_owned()),
        Just("world".to_owned()),
        Just("facts".to_owned()),
        Just("lua".to_owned()),
        Just("actionId".to_owned()),
        Just("text".to_owned()),
        Just("questionId".to_owned()),
        "[a-zA-Z.]{0,8}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        ".{0,24}".prop_map(Value::from),
        Just(Value::from("next")),
        Just(Value::from("the-party")),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect())),
        ]
    })
}

/// A body: random bytes, random JSON, or a nearly right object for the route.
fn any_body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..400),
        any_json().prop_map(|v| v.to_string().into_bytes()),
        (any_json(), any_json()).prop_map(|(a, b)| {
            json!({"documentId": a, "actionId": b, "text": "yes", "world": {"facts": {"You": {"HasTicket": true}}}})
                .to_string()
                .into_bytes()
        }),
    ]
}

/// One request's variable parts.
#[derive(Debug, Clone)]
struct Hostile {
    route: usize,
    own_session: bool,
    token: u8,
    key: Option<Vec<u8>>,
    media: u8,
    accept: u8,
    query: Option<String>,
    body: Vec<u8>,
    /// Whether to send a body of the route's own shape (built from `word` and `value`) instead.
    shaped: bool,
    word: String,
    value: Value,
}

fn any_request() -> impl Strategy<Value = Hostile> {
    (
        any::<usize>(),
        // Mostly the real session, its token, a well-formed key and a body of the route's shape,
        // so that requests reach the session; the rest of the time, anything.
        prop::bool::weighted(0.75),
        0u8..5,
        prop::option::weighted(
            0.9,
            prop_oneof![
                3 => "[!-~]{1,40}".prop_map(String::into_bytes),
                1 => prop::collection::vec(any::<u8>(), 0..300),
            ],
        ),
        0u8..5,
        0u8..3,
        prop::option::of("[a-z]{1,6}=[-a-z0-9./%]{0,12}"),
        any_body(),
        (prop::bool::weighted(0.75), any_word(), any_json()),
    )
        .prop_map(|(route, own_session, token, key, media, accept, query, body, (shaped, word, value))| Hostile {
            route,
            own_session,
            token,
            key,
            media,
            accept,
            query,
            body,
            shaped,
            word,
            value,
        })
}

/// Words a route may take: the club fair's actions and anchors, and any text.
fn any_word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("next".to_owned()),
        Just("done".to_owned()),
        Just("failed".to_owned()),
        Just("choose:1".to_owned()),
        Just("undo".to_owned()),
        Just("restart".to_owned()),
        Just("jump:the-party".to_owned()),
        Just("the-party".to_owned()),
        ".{0,40}",
    ]
}

/// A body of the route's own shape, with hostile values in it.
fn shaped(hostile: &Hostile, path: &str, document: &str) -> Vec<u8> {
    let word = &hostile.word;
    let value = &hostile.value;
    let body = if path.ends_with("/apply") {
        json!({ "actionId": word })
    } else if path.ends_with("/input") {
        json!({ "text": word, "questionId": value.as_str() })
    } else if path == "/v1/sessions" {
        let mut body = json!({ "documentId": document, "seed": 3 });
        if hostile.own_session {
            body["start"] = json!(word);
        }
        if value.is_object() {
            body["world"] = json!({ "facts": value });
        }
        body
    } else {
        Value::String(word.clone())
    };
    body.to_string().into_bytes()
}

const MEDIA: [&str; 5] = ["", "application/json", "text/markdown", "application/xml", "application/toml"];
const ACCEPT: [&str; 3] = ["", "application/json", "text/event-stream"];

fn request(hostile: &Hostile, document: &str, session: &str, token: &str) -> Request<Body> {
    let table = routes();
    let route = &table[hostile.route % table.len()];
    let id = if hostile.own_session { session } else { "0123456789abcdef" };
    let mut path = route.path.replace("{id}", id);
    if let Some(query) = &hostile.query {
        path = format!("{path}?{query}");
    }
    let mut builder = Request::builder().method(route.method.clone()).uri(path);
    match hostile.token {
        0 => {}
        1..=3 => builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}")),
        _ => builder = builder.header(header::AUTHORIZATION, "Bearer sht_not-the-token"),
    }
    if let Some(key) = hostile.key.as_ref().and_then(|k| HeaderValue::from_bytes(k).ok()) {
        builder = builder.header("idempotency-key", key);
    }
    let media = MEDIA[usize::from(hostile.media) % MEDIA.len()];
    if !media.is_empty() {
        builder = builder.header(header::CONTENT_TYPE, media);
    }
    let accept = ACCEPT[usize::from(hostile.accept) % ACCEPT.len()];
    if !accept.is_empty() {
        builder = builder.header(header::ACCEPT, accept);
    }
    let body = if hostile.shaped { shaped(hostile, route.path, document) } else { hostile.body.clone() };
    builder.body(Body::from(body)).expect("a request")
}

#[test]
fn random_requests_to_every_route_get_answers_never_a_panic_or_a_server_error() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (local, document, session, token) = runtime.block_on(async {
        let local = Local::start(Limits::default()).await;
        let document = local.upload("club-fair.dialogue.md").await;
        let (session, token) = local.session(&document).await;
        (local, document, session, token)
    });
    let config = ProptestConfig { cases: 800, failure_persistence: None, ..ProptestConfig::default() };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let routes_hit = std::cell::RefCell::new(std::collections::BTreeSet::new());
    // The session the requests aim at (made again when a request deletes it), and how many
    // applies and inputs reached it (answered by the session: executed, failed or rejected).
    let current = std::cell::RefCell::new((session, token));
    let reached = std::cell::Cell::new(0);
    runner
        .run(&any_request(), |hostile| {
            let table = routes();
            let route = &table[hostile.route % table.len()];
            routes_hit.borrow_mut().insert((route.method.to_string(), route.path));
            let (session, token) = current.borrow().clone();
            let answer = runtime.block_on(local.send(request(&hostile, &document, &session, &token)));
            prop_assert!(
                answer.status.as_u16() < 500,
                "{} {}: {} {}",
                route.method,
                route.path,
                answer.status,
                answer.body
            );
            if answer.status.as_u16() >= 400 {
                prop_assert_eq!(answer.media.as_str(), "application/problem+json", "{}", answer.body);
                prop_assert!(answer.problem().starts_with("urn:stagehand:problem:"), "{}", answer.body);
            }
            let ran = answer.status == 200 || answer.problem() == "urn:stagehand:problem:action-rejected";
            if ran && (route.path.ends_with("/apply") || route.path.ends_with("/input")) {
                reached.set(reached.get() + 1);
            }
            if route.method == Method::DELETE && answer.status == 204 {
                *current.borrow_mut() = runtime.block_on(local.session(&document));
            }
            Ok(())
        })
        .unwrap();
    // Every route was tried (800 cases over a dozen routes), and requests reached the session.
    let routes_hit = routes_hit.into_inner();
    assert_eq!(routes_hit.len(), routes().len(), "{routes_hit:?}");
    assert!(reached.get() >= 5, "only {} applies and inputs reached a session", reached.get());
    // And the server still serves.
    let healthy = runtime.block_on(local.call(Method::GET, "/healthz", None, None, Body::empty()));
    assert_eq!(healthy.status, 200);
}

/// Bodies that are JSON but not an object, and a name with control characters in it, are bad
/// input with a clear answer (serde reads a struct from an array of its fields; PostgreSQL
/// refuses a NUL in text), found by an audit.
#[tokio::test]
async fn an_array_for_a_body_is_refused_and_control_characters_leave_a_name() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let made = local.call(Method::POST, "/v1/sessions", None, None, json!([document, 7]).to_string()).await;
    assert_eq!(made.status, 400, "{}", made.body);
    assert_eq!(made.problem(), "urn:stagehand:problem:invalid-request", "{}", made.body);
    let (session, token) = local.session(&document).await;
    let path = format!("/v1/sessions/{session}/apply");
    let applied = local.call(Method::POST, &path, Some(&token), Some("k1"), r#"  ["next"]"#).await;
    assert_eq!(applied.status, 400, "{}", applied.body);
    let applied = local.call(Method::POST, &path, Some(&token), Some("k1"), r#"{"actionId":"done"}"#).await;
    assert_eq!(applied.status, 200, "the key was not spent by the bad body: {}", applied.body);
    let named = local.call(Method::POST, "/v1/documents?name=n%00a%0A.dialogue.md", None, None, "Mira: Hi.\n").await;
    assert_eq!(named.status, 201, "{}", named.body);
    let listed = local.call(Method::GET, "/v1/documents", None, None, Body::empty()).await;
    assert!(listed.body.contains("\"na.dialogue.md\""), "{}", listed.body);
}
