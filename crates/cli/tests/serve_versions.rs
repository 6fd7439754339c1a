//! `If-Match` on apply and input (decision S29), through the real binary on SQLite and on
//! PostgreSQL: a request chosen on a version the session has left is `412 session-moved` and
//! executes nothing, its key stays free, and a key already recorded answers as it did whatever
//! the version it names.

#[macro_use]
mod serve_support;

use serve_support::*;

on_both!(a_request_chosen_on_a_version_the_session_left_executes_nothing);

/// Sends `ask` under `key` with `If-Match: if_match`.
async fn ask_at(
    client: &reqwest::Client,
    server: &Server,
    session: &Made,
    key: &str,
    ask: &Ask,
    if_match: &str,
) -> Answer {
    let url = server.url(&format!("/v1/sessions/{}/{}", session.id, ask.route()));
    let request = client
        .post(url)
        .bearer_auth(&session.token)
        .header("idempotency-key", key)
        .header("if-match", if_match)
        .header("content-type", "application/json")
        .body(ask.body());
    send(request).await.unwrap()
}

async fn a_request_chosen_on_a_version_the_session_left_executes_nothing(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 3).await;

    // The version is the body's `version` and the answer's entity tag.
    let url = server.url(&format!("/v1/sessions/{}", session.id));
    let shown = client.get(&url).bearer_auth(&session.token).send().await.unwrap();
    assert_eq!(shown.headers().get("etag").and_then(|v| v.to_str().ok()), Some("\"1\""));
    let view: serde_json::Value = serde_json::from_str(&shown.text().await.unwrap()).expect("JSON");
    assert_eq!(view["version"], 1);
    let first = toward_the_end(&view["view"]).expect("something to do");

    // Chosen on version 1, applied on version 1: executed.
    let applied = ask_at(&client, &server, &session, "a1", &first, "\"1\"").await;
    assert_eq!(applied.status, 200, "{}", applied.body);
    assert_eq!(applied.json()["version"], 2);
    // Its key answers as it did, though the session has left version 1.
    let again = ask_at(&client, &server, &session, "a1", &first, "\"1\"").await;
    assert_eq!((again.status, &again.body), (applied.status, &applied.body));

    // Another key chosen on version 1 (a second tab's stale view): 412, nothing executed.
    let next = toward_the_end(&show(&client, &server, &session).await.unwrap()["view"]).expect("more to do");
    let stale = ask_at(&client, &server, &session, "a2", &next, "\"1\"").await;
    assert_eq!(stale.status, 412, "{}", stale.body);
    assert_eq!(stale.problem_type(), "urn:stagehand:problem:session-moved");
    assert_eq!(stale.json()["version"], 2, "the problem says where the session is: {}", stale.body);
    assert!(stale.json()["detail"].as_str().unwrap().contains("version 1"), "{}", stale.body);
    assert_eq!(show(&client, &server, &session).await.unwrap()["version"], 2, "nothing executed");

    // The key was not spent: chosen again on version 2, it executes.
    let fresh = ask_at(&client, &server, &session, "a2", &next, "2").await;
    assert_eq!(fresh.status, 200, "{}", fresh.body);
    assert_eq!(fresh.json()["version"], 3);

    // `*` names no version; a malformed one is a 400 that executes nothing.
    let view = show(&client, &server, &session).await.unwrap();
    let onward = toward_the_end(&view["view"]).expect("more to do");
    let malformed = ask_at(&client, &server, &session, "a3", &onward, "\"three\"").await;
    assert_eq!(malformed.status, 400, "{}", malformed.body);
    assert_eq!(malformed.problem_type(), "urn:stagehand:problem:invalid-request");
    assert_eq!(show(&client, &server, &session).await.unwrap()["version"], 3);
    let any = ask_at(&client, &server, &session, "a3", &onward, "*").await;
    assert_eq!(any.status, 200, "{}", any.body);
    assert_eq!(any.json()["version"], 4);

    // Without If-Match a request applies on whatever version the session is at (as before).
    let view = show(&client, &server, &session).await.unwrap();
    if let Some(onward) = toward_the_end(&view["view"]) {
        let plain = ask(&client, &server, &session, "a4", &onward).await.unwrap();
        assert!(committed(&plain), "{}", plain.body);
    }
    drop(server);
    database.finish().await;
}
