//! What `stagehand serve` adds for the web page's writer's preview and player (issue 15), through
//! the real binary on SQLite and PostgreSQL: `--watch DIR` (the listing, reloads, the source and
//! the paths it refuses), the graph route, loading a session from a snapshot, and styled speech
//! in receipts and the transcript.

#[macro_use]
mod serve_support;

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use serve_support::*;

on_both!(a_watched_folder_is_listed_reloaded_and_read_only_where_it_lists);
on_both!(a_session_loads_from_a_snapshot_of_its_own_document_only);
on_both!(styled_speech_is_carried_beside_the_plain_text);
on_both!(the_graph_is_drawn_with_the_ids_of_its_nodes);

/// A folder holding copies of `names` (examples), beside the database's folder.
fn watched(database: &Database, names: &[&str]) -> std::path::PathBuf {
    let folder = database.folder().join("watched");
    std::fs::create_dir_all(&folder).unwrap();
    for name in names {
        std::fs::copy(example(name), folder.join(name)).unwrap();
    }
    folder
}

async fn listing(client: &reqwest::Client, server: &Server) -> Value {
    let answer = send(client.get(server.url("/v1/watch"))).await.unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.json()
}

fn entry<'a>(listing: &'a Value, path: &str) -> &'a Value {
    listing["documents"].as_array().unwrap().iter().find(|d| d["path"] == path).unwrap_or_else(|| panic!("{listing}"))
}

/// Waits (20 s at most) until the listing's entry for `path` satisfies `done`.
async fn until(client: &reqwest::Client, server: &Server, path: &str, done: impl Fn(&Value) -> bool) -> Value {
    let started = Instant::now();
    loop {
        let listed = listing(client, server).await;
        if listed["documents"].as_array().unwrap().iter().any(|d| d["path"] == path && done(d)) {
            return entry(&listed, path).clone();
        }
        assert!(started.elapsed() < Duration::from_secs(20), "the watch did not see the change: {listed}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn a_watched_folder_is_listed_reloaded_and_read_only_where_it_lists(database: Database) {
    let folder = watched(&database, &["club-fair.dialogue.md", "the-crossing.xml", "club-fair.world.lua"]);
    std::fs::write(database.folder().join("secret.md"), "Alice: not in the folder.\n").unwrap();
    // A link in the folder that leads out of it is not a document of the folder.
    #[cfg(unix)]
    std::os::unix::fs::symlink(database.folder().join("secret.md"), folder.join("linked.dialogue.md")).unwrap();
    // Markdown that is not named a script is the folder's documentation, not a story (S38).
    std::fs::write(folder.join("README.md"), "Alice: these are the stories.\n").unwrap();
    let server = Server::start_with(&database, &["--watch", folder.to_str().unwrap()]);
    let client = client();
    let listed = listing(&client, &server).await;
    let paths: Vec<&str> = listed["documents"].as_array().unwrap().iter().filter_map(|d| d["path"].as_str()).collect();
    assert_eq!(
        paths,
        ["club-fair.dialogue.md", "the-crossing.xml"],
        "the folder's own documents: no Lua world, no link out of it, no README"
    );
    let script = entry(&listed, "club-fair.dialogue.md").clone();
    assert_eq!(script["kind"], "dialoguedown");
    assert_eq!(script["diagnostics"], json!([]));
    let first_id = script["documentId"].as_str().unwrap().to_owned();
    assert_eq!(entry(&listed, "the-crossing.xml")["kind"], "chatmapper");
    // A watched document is a stored document: it plays.
    let session = create(&client, &server, &first_id, 3).await;

    // The source, for a listed path only.
    let file = folder.join("club-fair.dialogue.md");
    let source = std::fs::read_to_string(&file).unwrap();
    let answer = send(client.get(server.url("/v1/watch/source?path=club-fair.dialogue.md"))).await.unwrap();
    assert_eq!((answer.status, answer.media.as_str()), (200, "text/plain; charset=utf-8"));
    assert_eq!(answer.body, source);
    for path in [
        "../secret.md",
        "..%2Fsecret.md",
        "%2Fetc%2Fpasswd",
        "club-fair.world.lua",
        "watched/club-fair.dialogue.md",
        "linked.dialogue.md",
        "README.md",
        ".",
    ] {
        let answer = send(client.get(server.url(&format!("/v1/watch/source?path={path}")))).await.unwrap();
        assert_eq!(answer.status, 404, "{path}: {}", answer.body);
        assert_eq!(answer.problem_type(), "urn:stagehand:problem:not-found");
        assert!(!answer.body.contains("not in the folder"), "{path} was read");
    }
    let answer = send(client.get(server.url("/v1/watch/source"))).await.unwrap();
    assert_eq!(answer.problem_type(), "urn:stagehand:problem:invalid-request");

    // The writer breaks a jump: the listing shows the diagnostic, its span on the broken text.
    let broken = source.replace("](#the-party)", "](#the-parti)");
    assert_ne!(broken, source);
    std::fs::write(&file, &broken).unwrap();
    let failing = until(&client, &server, "club-fair.dialogue.md", |d| d.get("documentId").is_none()).await;
    let diagnostic = &failing["diagnostics"][0];
    assert_eq!((diagnostic["code"].as_str(), diagnostic["severity"].as_str()), (Some("DLG2009"), Some("error")));
    let (start, end) = (diagnostic["span"]["start"].as_u64().unwrap(), diagnostic["span"]["end"].as_u64().unwrap());
    assert!(broken[start as usize..end as usize].contains("the-parti"), "{diagnostic}");
    let line = diagnostic["line"].as_u64().unwrap() as usize;
    assert!(broken.lines().nth(line - 1).unwrap().contains("the-parti"), "{diagnostic}");
    // The source route reads the file as it is now.
    let answer = send(client.get(server.url("/v1/watch/source?path=club-fair.dialogue.md"))).await.unwrap();
    assert_eq!(answer.body, broken);

    // Mended with a line reworded: a new version, stored beside the old one.
    std::fs::write(&file, source.replace("Every table wants", "Every single table wants")).unwrap();
    let mended = until(&client, &server, "club-fair.dialogue.md", |d| d.get("documentId").is_some()).await;
    let second_id = mended["documentId"].as_str().unwrap();
    assert_ne!(second_id, first_id);
    let stored = send(client.get(server.url("/v1/documents"))).await.unwrap().json();
    let ids: Vec<&str> =
        stored["documents"].as_array().unwrap().iter().filter_map(|d| d["documentId"].as_str()).collect();
    assert!(ids.contains(&first_id.as_str()) && ids.contains(&second_id), "{stored}");
    // The session of the earlier version goes on.
    let view = show(&client, &server, &session).await.unwrap()["view"].clone();
    let next = toward_the_end(&view).unwrap();
    assert!(committed(&ask(&client, &server, &session, "after-the-edit", &next).await.unwrap()));

    // A file that goes away leaves the listing; a new one joins it.
    std::fs::remove_file(folder.join("the-crossing.xml")).unwrap();
    std::fs::copy(example("the-lighthouse.xml"), folder.join("the-lighthouse.xml")).unwrap();
    until(&client, &server, "the-lighthouse.xml", |d| d["documentId"].is_string()).await;
    let listed = listing(&client, &server).await;
    assert!(listed["documents"].as_array().unwrap().iter().all(|d| d["path"] != "the-crossing.xml"), "{listed}");
    drop(server);

    // Without --watch there is nothing to list or read.
    let server = Server::start(&database);
    for path in ["/v1/watch", "/v1/watch/source?path=club-fair.dialogue.md"] {
        let answer = send(client.get(server.url(path))).await.unwrap();
        assert_eq!(answer.status, 404, "{path}");
        assert!(answer.body.contains("--watch"), "{}", answer.body);
    }
    drop(server);
    database.finish().await;
}

async fn a_session_loads_from_a_snapshot_of_its_own_document_only(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let other = upload(&client, &server, "the-crossing.xml").await;
    let saved = create(&client, &server, &document, 11).await;
    let mut keys = Vec::new();
    for turn in 0..4 {
        let view = show(&client, &server, &saved).await.unwrap()["view"].clone();
        let next = toward_the_end(&view).unwrap();
        let key = format!("before-{turn}");
        assert!(committed(&ask(&client, &server, &saved, &key, &next).await.unwrap()));
        keys.push((key, next));
    }
    let snapshot =
        send(client.get(server.url(&format!("/v1/sessions/{}/snapshot", saved.id))).bearer_auth(&saved.token))
            .await
            .unwrap()
            .json();
    let post = |body: Value| {
        send(client.post(server.url("/v1/sessions")).header("content-type", "application/json").body(body.to_string()))
    };

    let answer = post(json!({"documentId": document, "snapshot": snapshot})).await.unwrap();
    assert_eq!(answer.status, 201, "{}", answer.body);
    let created = answer.json();
    let loaded = Made {
        id: created["sessionId"].as_str().unwrap().to_owned(),
        token: created["token"].as_str().unwrap().to_owned(),
        seed: 11,
    };
    assert_ne!(loaded.id, saved.id);
    let original = show(&client, &server, &saved).await.unwrap();
    assert_eq!(created["view"], original["view"], "it stands where the save stood");
    let shown = show(&client, &server, &loaded).await.unwrap();
    assert_eq!(shown["view"], original["view"]);
    assert_eq!(shown["version"], 1);
    // A key the saved session recorded answers as it did there, executing nothing again.
    let (key, asked) = &keys[3];
    let replayed = ask(&client, &server, &loaded, key, asked).await.unwrap();
    assert!(committed(&replayed), "{}", replayed.body);
    assert_eq!(show(&client, &server, &loaded).await.unwrap()["view"], original["view"]);
    // Both go on, apart: the loaded one to its end, its trace its own from 1.
    for turn in 0..200 {
        let view = show(&client, &server, &loaded).await.unwrap()["view"].clone();
        let Some(next) = toward_the_end(&view) else { break };
        assert!(committed(&ask(&client, &server, &loaded, &format!("after-{turn}"), &next).await.unwrap()));
    }
    let shown = show(&client, &server, &loaded).await.unwrap();
    assert_eq!(shown["view"]["status"], "done");
    assert_eq!(shown["transcript"].as_array().unwrap().last().unwrap()["type"], "ended");
    assert_eq!(
        show(&client, &server, &saved).await.unwrap()["view"],
        original["view"],
        "the saved session did not move"
    );
    let sequences: Vec<u64> =
        trace(&client, &server, &loaded).await.iter().map(|r| r["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (1..=sequences.len() as u64).collect::<Vec<_>>());

    // Refusals: another document's snapshot, a snapshot that is no snapshot, a seed beside one.
    let answer = post(json!({"documentId": other, "snapshot": snapshot})).await.unwrap();
    assert_eq!((answer.status, answer.problem_type().as_str()), (422, "urn:stagehand:problem:session-failed"));
    let detail = answer.json()["detail"].as_str().unwrap().to_owned();
    assert!(detail.contains("saved from the document") && detail.contains(&document), "{detail}");
    let mut mangled = snapshot.clone();
    mangled["engine"] = json!("nothing");
    let answer = post(json!({"documentId": document, "snapshot": mangled})).await.unwrap();
    assert_eq!((answer.status, answer.problem_type().as_str()), (422, "urn:stagehand:problem:session-failed"));
    let answer = post(json!({"documentId": document, "snapshot": [1, 2]})).await.unwrap();
    assert_eq!(answer.status, 422, "{}", answer.body);
    let answer = post(json!({"documentId": document, "snapshot": snapshot, "seed": 4})).await.unwrap();
    assert_eq!(answer.problem_type(), "urn:stagehand:problem:invalid-request");
    let answer = post(json!({"documentId": "nothing-here", "snapshot": snapshot})).await.unwrap();
    assert_eq!(answer.status, 404);
    drop(server);
    database.finish().await;
}

async fn styled_speech_is_carried_beside_the_plain_text(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let session = create(&client, &server, &document, 2).await;
    let mut receipts = Vec::new();
    for turn in 0..200 {
        let view = show(&client, &server, &session).await.unwrap()["view"].clone();
        let Some(next) = toward_the_end(&view) else { break };
        let answer = ask(&client, &server, &session, &format!("t{turn}"), &next).await.unwrap();
        assert!(committed(&answer));
        if answer.status == 200 {
            receipts.push(answer.json()["receipt"].clone());
        }
    }
    let shown = show(&client, &server, &session).await.unwrap();
    let transcript = shown["transcript"].as_array().unwrap();
    // "Every table wants *you*." is said with its italic; the plain text stays beside it.
    let welcome =
        transcript.iter().find(|l| l["text"].as_str().is_some_and(|t| t.contains("Every table wants"))).unwrap();
    assert_eq!(welcome["text"], "Welcome to the club fair! Every table wants you.");
    let speech = welcome["speech"].as_array().expect("styled speech");
    let styled = speech.iter().find(|f| f["kind"] == "styled").expect("a styled fragment");
    assert_eq!((styled["style"].as_str(), styled["children"][0]["text"].as_str()), (Some("italic"), Some("you")));
    // The receipt that said it carried the same.
    let events = receipts.iter().filter_map(|r| r["events"].as_array()).flatten();
    assert!(events.clone().any(|e| e["speech"] == welcome["speech"]), "a receipt carried the speech");
    // Lines of plain words carry none.
    assert!(events.filter(|e| e["type"] == "said").any(|e| e.get("speech").is_none()), "plain lines carry none");
    assert!(transcript.iter().any(|l| l["type"] == "said" && l.get("speech").is_none()), "plain lines carry none");
    drop(server);
    database.finish().await;
}

async fn the_graph_is_drawn_with_the_ids_of_its_nodes(database: Database) {
    let server = Server::start(&database);
    let client = client();
    let document = upload(&client, &server, "club-fair.dialogue.md").await;
    let project = upload(&client, &server, "the-crossing.xml").await;
    let url = server.url(&format!("/v1/documents/{document}/graph"));
    let dot = send(client.get(&url)).await.unwrap();
    assert_eq!((dot.status, dot.media.as_str()), (200, "text/vnd.graphviz; charset=utf-8"));
    let expected = {
        let bytes = std::fs::read(example("club-fair.dialogue.md")).unwrap();
        let opened = stagehand_documents::Document::open("club-fair.dialogue.md", &bytes, &Default::default()).unwrap();
        stagehand_documents::render(opened.playbook().unwrap(), stagehand_documents::Format::Dot)
    };
    assert_eq!(dot.body, expected, "what `stagehand graph` draws");
    let mermaid = send(client.get(format!("{url}?format=mermaid"))).await.unwrap();
    assert!(mermaid.body.starts_with("flowchart TD"), "{}", mermaid.body);
    let json = send(client.get(&url).header("accept", "application/json")).await.unwrap().json();
    assert_eq!((json["format"].as_str(), json["graph"].as_str()), (Some("dot"), Some(expected.as_str())));
    let nodes = json["nodes"].as_array().unwrap();
    assert!(nodes.len() > 10);
    for (index, node) in nodes.iter().enumerate() {
        assert_eq!(node["index"], index);
        let id = node["id"].as_str().unwrap();
        assert!(expected.contains(&format!("{id} [shape=")), "{id} is drawn");
    }
    assert!(nodes.iter().any(|n| n["anchor"] == "the-party"), "anchors are named");
    let bad = send(client.get(format!("{url}?format=png"))).await.unwrap();
    assert_eq!(bad.problem_type(), "urn:stagehand:problem:invalid-request");
    let none = send(client.get(server.url(&format!("/v1/documents/{project}/graph")))).await.unwrap();
    assert_eq!((none.status, none.problem_type().as_str()), (404, "urn:stagehand:problem:not-found"));
    assert!(none.body.contains("ChatMapper"), "{}", none.body);
    let missing = send(client.get(server.url("/v1/documents/nothing/graph"))).await.unwrap();
    assert_eq!(missing.status, 404);
    drop(server);
    database.finish().await;
}
