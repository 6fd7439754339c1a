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
}

fn any_request() -> impl Strategy<Value = Hostile> {
    (
        any::<usize>(),
        any::<bool>(),
        0u8..3,
        prop::option::of(prop::collection::vec(any::<u8>(), 0..300)),
        0u8..5,
        0u8..3,
        prop::option::of("[a-z]{1,6}=[-a-z0-9./%]{0,12}"),
        any_body(),
    )
        .prop_map(|(route, own_session, token, key, media, accept, query, body)| Hostile {
            route,
            own_session,
            token,
            key,
            media,
            accept,
            query,
            body,
        })
}

const MEDIA: [&str; 5] = ["", "application/json", "text/markdown", "application/xml", "application/toml"];
const ACCEPT: [&str; 3] = ["", "application/json", "text/event-stream"];

fn request(hostile: &Hostile, session: &str, token: &str) -> Request<Body> {
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
        1 => builder = builder.header(header::AUTHORIZATION, format!("Bearer {token}")),
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
    builder.body(Body::from(hostile.body.clone())).expect("a request")
}

#[test]
fn random_requests_to_every_route_get_answers_never_a_panic_or_a_server_error() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (local, session, token) = runtime.block_on(async {
        let local = Local::start(Limits::default()).await;
        let document = local.upload("club-fair.dialogue.md").await;
        let (session, token) = local.session(&document).await;
        (local, session, token)
    });
    let config = ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let routes_hit = std::cell::RefCell::new(std::collections::BTreeSet::new());
    runner
        .run(&any_request(), |hostile| {
            let table = routes();
            let route = &table[hostile.route % table.len()];
            routes_hit.borrow_mut().insert((route.method.to_string(), route.path));
            let answer = runtime.block_on(local.send(request(&hostile, &session, &token)));
            prop_assert!(
                answer.status.as_u16() < 500,
                "{} {}: {} {}",
                route.method,
                route.path,
                answer.status,
                answer.body
            );
            if answer.status.as_u16() >= 400 && route.method != Method::HEAD {
                prop_assert_eq!(answer.media.as_str(), "application/problem+json", "{}", answer.body);
                prop_assert!(answer.problem().starts_with("urn:stagehand:problem:"), "{}", answer.body);
            }
            Ok(())
        })
        .unwrap();
    // Every route was tried (400 cases over a dozen routes).
    let routes_hit = routes_hit.into_inner();
    assert_eq!(routes_hit.len(), routes().len(), "{routes_hit:?}");
    // And the server still serves.
    let healthy = runtime.block_on(local.call(Method::GET, "/healthz", None, None, Body::empty()));
    assert_eq!(healthy.status, 200);
}
