//! `stagehand serve` through the real binary on an ephemeral loopback port, on SQLite (a temp
//! file) and on PostgreSQL (a scratch database, when `STAGEHAND_TEST_POSTGRES` is set; otherwise
//! a printed notice): stories played to their ends, idempotency keys replayed in turn and 50 at
//! once, stale actions, tokens, problems, the OpenAPI document, live traces, shutdown (issue 14).

#[macro_use]
mod serve_support;

use futures_util::future::join_all;
use serde_json::{json, Value};
use serve_support::*;

on_both!(stories_play_to_their_ends);
on_both!(a_key_executes_once);
on_both!(fifty_requests_with_one_key_execute_once);

/// Plays a document to its end by the player who wants to finish; each request is sent twice and
/// the second answer must be the first, byte for byte.
async fn play_to_the_end(client: &reqwest::Client, server: &Server, name: &str) -> Vec<Committed> {
    let document = upload(client, server, name).await;
    // Uploading it again gives the same id.
    assert_eq!(upload(client, server, name).await, document);
    let session = create(client, server, &document, 7).await;
    let mut done = Vec::new();
    for turn in 0..500 {
        let shown = show(client, server, &session).await.unwrap();
        let Some(next) = toward_the_end(&shown["view"]) else {
            assert_eq!(shown["view"]["status"], "done", "{name} ended: {}", shown["view"]);
            let transcript = shown["transcript"].as_array().unwrap();
            assert!(!transcript.is_empty(), "{name} said something");
            assert_eq!(transcript.last().unwrap()["type"], "ended");
            holds_as_replay(client, server, &session, name, done.clone()).await;
            return done;
        };
        let key = format!("turn-{turn}");
        let first = ask(client, server, &session, &key, &next).await.unwrap();
        assert!(committed(&first), "{name}, turn {turn}: {}", first.body);
        let again = ask(client, server, &session, &key, &next).await.unwrap();
        assert_eq!((again.status, &again.body), (first.status, &first.body), "the same key, the same receipt");
        done.push(Committed { key, ask: next, status: first.status, body: first.body });
    }
    panic!("{name} did not end in 500 turns");
}

async fn stories_play_to_their_ends(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let played = play_to_the_end(&client, &server, "club-fair.dialogue.md").await;
    assert!(played.len() > 5, "club-fair took {} turns", played.len());
    assert!(played.iter().any(|c| matches!(c.ask, Ask::Input(..))), "club-fair's question was answered by input");
    play_to_the_end(&client, &server, "the-crossing.xml").await;
    let listed = send(client.get(server.url("/v1/documents"))).await.unwrap().json();
    assert_eq!(listed["documents"].as_array().unwrap().len(), 2, "{listed}");
    drop(server);
    database.finish().await;
}

async fn a_key_executes_once(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 1).await;
    let view = show(&client, &server, &session).await.unwrap()["view"].clone();
    let next = toward_the_end(&view).unwrap();
    let first = ask(&client, &server, &session, "k1", &next).await.unwrap();
    assert_eq!(first.status, 200, "{}", first.body);
    let again = ask(&client, &server, &session, "k1", &next).await.unwrap();
    assert_eq!((again.status, &again.body), (first.status, &first.body));
    // The same key with another body: 422, nothing executed.
    let other = ask(&client, &server, &session, "k1", &Ask::Apply("failed".into())).await.unwrap();
    assert_eq!(other.status, 422, "{}", other.body);
    assert_eq!(other.problem_type(), "urn:stagehand:problem:idempotency-key-reused");
    // A stale action (the first view's, no longer offered): 409 with the reason, not executed.
    let stale = ask(&client, &server, &session, "k2", &next).await.unwrap();
    assert_eq!(stale.status, 409, "{}", stale.body);
    assert_eq!(stale.problem_type(), "urn:stagehand:problem:action-rejected");
    assert!(stale.json()["detail"].as_str().unwrap().contains("not an action now"), "{}", stale.body);
    // Its key keeps its answer too.
    let stale_again = ask(&client, &server, &session, "k2", &next).await.unwrap();
    assert_eq!(stale_again.body, stale.body);
    // No key: 400.
    let url = server.url(&format!("/v1/sessions/{}/apply", session.id));
    let keyless = send(client.post(&url).bearer_auth(&session.token).body(r#"{"actionId":"next"}"#)).await.unwrap();
    assert_eq!(keyless.problem_type(), "urn:stagehand:problem:missing-idempotency-key");
    let done = vec![
        Committed { key: "k1".into(), ask: next.clone(), status: first.status, body: first.body },
        Committed { key: "k2".into(), ask: next, status: stale.status, body: stale.body },
    ];
    holds_as_replay(&client, &server, &session, "club-fair.dialogue.md", done).await;
    let metrics = send(client.get(server.url("/metrics"))).await.unwrap().body;
    assert!(metrics.contains("stagehand_receipts_replayed_total 2"), "{metrics}");
    drop(server);
    database.finish().await;
}

async fn fifty_requests_with_one_key_execute_once(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 2).await;
    let view = show(&client, &server, &session).await.unwrap()["view"].clone();
    let next = toward_the_end(&view).unwrap();
    let answers = join_all((0..50).map(|_| ask(&client, &server, &session, "once", &next))).await;
    let answers: Vec<Answer> = answers.into_iter().map(Result::unwrap).collect();
    for answer in &answers {
        assert_eq!((answer.status, &answer.body), (answers[0].status, &answers[0].body));
    }
    assert_eq!(answers[0].status, 200, "{}", answers[0].body);
    assert_eq!(show(&client, &server, &session).await.unwrap()["version"], 2, "one execution");
    let done = vec![Committed { key: "once".into(), ask: next, status: 200, body: answers[0].body.clone() }];
    holds_as_replay(&client, &server, &session, "club-fair.dialogue.md", done).await;
    drop(server);
    database.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_guard_sessions_without_telling_whether_they_exist() {
    let database = Database::sqlite();
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 3).await;
    let path = format!("/v1/sessions/{}", session.id);
    let missing = send(client.get(server.url(&path))).await.unwrap();
    assert_eq!((missing.status, missing.problem_type().as_str()), (401, "urn:stagehand:problem:unauthorized"));
    let wrong = send(client.get(server.url(&path)).bearer_auth("sht_wrong")).await.unwrap();
    let absent = send(client.get(server.url("/v1/sessions/nope")).bearer_auth(&session.token)).await.unwrap();
    assert_eq!(wrong.status, 404);
    assert_eq!((wrong.status, &wrong.body), (absent.status, &absent.body), "the same answer either way");
    // The token is in no trace line and no other answer.
    let records = trace(&client, &server, &session).await;
    assert!(!serde_json::to_string(&records).unwrap().contains(&session.token));
    // Delete: 204, then it is gone for its own token too.
    let deleted = send(client.delete(server.url(&path)).bearer_auth(&session.token)).await.unwrap();
    assert_eq!(deleted.status, 204);
    let gone = send(client.get(server.url(&path)).bearer_auth(&session.token)).await.unwrap();
    assert_eq!((gone.status, &gone.body), (absent.status, &absent.body));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_route_is_served_and_no_other() {
    let database = Database::sqlite();
    let server = Server::start(&database);
    let client = client();
    let openapi = send(client.get(server.url("/v1/openapi.json"))).await.unwrap().json();
    assert_eq!(openapi["openapi"], "3.1.0");
    for (path, item) in openapi["paths"].as_object().unwrap() {
        let concrete = path.replace("{id}", "some-id");
        for method in item.as_object().unwrap().keys() {
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let answer = send(client.request(method.clone(), server.url(&concrete))).await.unwrap();
            let routed = !(answer.status == 404 && answer.body.contains("no route serves this path"));
            assert!(routed && answer.status != 405, "{method} {path}: {} {}", answer.status, answer.body);
        }
    }
    let unknown = send(client.get(server.url("/v1/nothing"))).await.unwrap();
    assert!(unknown.body.contains("no route serves this path"), "{}", unknown.body);
    let wrong_method = send(client.put(server.url("/v1/sessions"))).await.unwrap();
    assert_eq!(wrong_method.problem_type(), "urn:stagehand:problem:method-not-allowed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_is_served_at_the_root_from_the_binary_itself() {
    let database = Database::sqlite();
    let server = Server::start(&database);
    let client = client();
    let page = send(client.get(server.url("/"))).await.unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.body.as_bytes(), stagehand_web::asset("/").expect("an embedded page").bytes);
    for (file, _, _) in stagehand_web::FILES {
        let answer = send(client.get(server.url(&format!("/{file}")))).await.unwrap();
        assert_eq!(answer.status, 200, "/{file}: {}", answer.body);
    }
    let missing = send(client.get(server.url("/no-such-file.js"))).await.unwrap();
    assert_eq!(missing.problem_type(), "urn:stagehand:problem:not-found");
    let posted = send(client.post(server.url("/"))).await.unwrap();
    assert_eq!(posted.status, 404, "only GET and HEAD reach the page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_bodies_get_problems_never_a_crash() {
    let database = Database::sqlite();
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 4).await;
    let mut dice = Dice(14);
    let routes = [
        ("POST", "/v1/documents".to_owned()),
        ("POST", "/v1/sessions".to_owned()),
        ("POST", format!("/v1/sessions/{}/apply", session.id)),
        ("POST", format!("/v1/sessions/{}/input", session.id)),
        ("GET", format!("/v1/sessions/{}?after=x", session.id)),
        ("GET", format!("/v1/sessions/{}/trace?after=-1", session.id)),
    ];
    let shapes = [json!(null), json!([1, 2]), json!({"actionId": 5}), json!({"documentId": []}), json!({"text": {}})];
    for round in 0..120 {
        let (method, path) = &routes[round % routes.len()];
        let body: Vec<u8> = match dice.next() % 3 {
            0 => (0..dice.next() % 300).map(|_| (dice.next() % 256) as u8).collect(),
            1 => shapes[(dice.next() % shapes.len() as u64) as usize].to_string().into_bytes(),
            _ => {
                let mut value = json!({"actionId": "next", "documentId": document, "text": "yes"});
                value["seed"] = Value::from(dice.next() % 3);
                value.to_string().into_bytes()
            }
        };
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = send(
            client
                .request(method, server.url(path))
                .bearer_auth(&session.token)
                .header("idempotency-key", format!("h{round}"))
                .body(body),
        )
        .await
        .unwrap();
        assert!(answer.status < 500, "round {round}: {} {}", answer.status, answer.body);
        if answer.status >= 400 {
            assert_eq!(answer.media, "application/problem+json", "round {round}: {}", answer.body);
        }
    }
    // Too large a body is 413, as a problem.
    let big = vec![b'x'; (64 << 10) + 100];
    let url = server.url(&format!("/v1/sessions/{}/apply", session.id));
    let answer =
        send(client.post(url).bearer_auth(&session.token).header("idempotency-key", "big").body(big)).await.unwrap();
    assert_eq!((answer.status, answer.problem_type().as_str()), (413, "urn:stagehand:problem:payload-too-large"));
    // A script that does not compile: 422 with diagnostics.
    let answer = send(
        client.post(server.url("/v1/documents?name=bad.dialogue.md")).body("Alice: hi.\n\n=> [Nowhere](#nowhere)\n"),
    )
    .await
    .unwrap();
    assert_eq!(answer.status, 422, "{}", answer.body);
    let diagnostics = answer.json()["diagnostics"].clone();
    assert!(diagnostics[0]["line"].as_u64().is_some() && diagnostics[0]["code"].is_string(), "{diagnostics}");
    assert_eq!(send(client.get(server.url("/healthz"))).await.unwrap().status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_trace_resumes_after_the_last_event_it_saw() {
    let database = Database::sqlite();
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 5).await;
    let url = server.url(&format!("/v1/sessions/{}/trace?after=0", session.id));
    let mut stream =
        client.get(&url).bearer_auth(&session.token).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    // Play three turns while the stream is open; read until their records arrive.
    for turn in 0..3 {
        let view = show(&client, &server, &session).await.unwrap()["view"].clone();
        let next = toward_the_end(&view).unwrap();
        assert!(committed(&ask(&client, &server, &session, &format!("t{turn}"), &next).await.unwrap()));
    }
    let mut text = String::new();
    let mut ids = Vec::new();
    while ids.len() < 7 {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(20), stream.chunk()).await.unwrap().unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk.expect("the stream goes on")));
        ids = text.lines().filter_map(|l| l.strip_prefix("id: ")).map(|n| n.parse::<u64>().unwrap()).collect();
    }
    assert_eq!(ids[..7], [1, 2, 3, 4, 5, 6, 7]);
    drop(stream);
    // Reconnect with Last-Event-ID 4: the stream goes on at 5, missing nothing.
    let mut again = client
        .get(&url)
        .bearer_auth(&session.token)
        .header("accept", "text/event-stream")
        .header("last-event-id", "4")
        .send()
        .await
        .unwrap();
    let chunk =
        tokio::time::timeout(std::time::Duration::from_secs(20), again.chunk()).await.unwrap().unwrap().unwrap();
    let first = String::from_utf8_lossy(&chunk).lines().find_map(|l| l.strip_prefix("id: ").map(str::to_owned));
    assert_eq!(first.as_deref(), Some("5"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_finishes_and_exits_cleanly_and_sessions_outlive_the_process() {
    let database = Database::sqlite();
    let mut server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 6).await;
    let before = show(&client, &server, &session).await.unwrap();
    assert_eq!(server.terminate(), Some(0));
    let server = Server::start(&database);
    let after = show(&client, &server, &session).await.unwrap();
    assert_eq!(after, before);
    assert!(database.folder().join("stagehand.db").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_in_the_documents_folder_are_loaded_at_start() {
    let database = Database::sqlite();
    let folder = example("");
    let server = Server::start_with(&database, &["--documents", folder.to_str().unwrap()]);
    let client = client();
    let listed = send(client.get(server.url("/v1/documents"))).await.unwrap().json();
    let names: Vec<&str> = listed["documents"].as_array().unwrap().iter().filter_map(|d| d["name"].as_str()).collect();
    for name in ["club-fair.dialogue.md", "the-crossing.xml", "the-lighthouse.xml"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    // The Lua world beside the script is not a document: it is skipped, not listed.
    assert!(!names.contains(&"club-fair.world.lua"), "{names:?}");
    // A loaded document plays like an uploaded one.
    let id = listed["documents"].as_array().unwrap().iter().find(|d| d["name"] == "club-fair.dialogue.md").unwrap()
        ["documentId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(upload(&client, &server, "club-fair.dialogue.md").await, id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_scripts_and_projects_of_the_documents_folder_are_loaded() {
    // A README.md beside the stories is documentation, not a script (S38): only `.dialogue.md`
    // names a script in a folder, and a file of no document kind is not opened at all.
    let database = Database::sqlite();
    let folder = database.folder().join("stories");
    std::fs::create_dir_all(&folder).unwrap();
    for name in ["club-fair.dialogue.md", "the-crossing.xml"] {
        std::fs::copy(example(name), folder.join(name)).unwrap();
    }
    std::fs::write(folder.join("README.md"), "Alice: these are the stories.\n").unwrap();
    std::fs::write(folder.join("notes.txt"), "Alice: a note.\n").unwrap();
    let server = Server::start_with(&database, &["--documents", folder.to_str().unwrap()]);
    let listed = send(client().get(server.url("/v1/documents"))).await.unwrap().json();
    let mut names: Vec<&str> =
        listed["documents"].as_array().unwrap().iter().filter_map(|d| d["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["club-fair.dialogue.md", "the-crossing.xml"], "{listed}");
}
