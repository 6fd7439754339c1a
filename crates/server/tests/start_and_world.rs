//! `POST /v1/sessions {documentId, seed?, start?, world?}` (decisions S17, S18): where a session
//! starts, and a world of facts that answers what the session asks until a person must act, on
//! creation and after every apply; what is refused, with its problem type. And an agent machine
//! upload, refused for its kind.

mod support;

use axum::http::{Method, StatusCode};
use serde_json::{json, Value};
use stagehand_server::Limits;
use support::{example, Local};

fn action_ids(view: &Value) -> Vec<String> {
    view["actions"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_owned()).collect()
}

async fn transcript(local: &Local, session: &str, token: &str) -> Vec<String> {
    let shown = local.call(Method::GET, &format!("/v1/sessions/{session}"), Some(token), None, "").await.json();
    shown["transcript"].as_array().unwrap().iter().filter_map(|l| l["text"].as_str().map(str::to_owned)).collect()
}

#[tokio::test]
async fn a_session_starts_where_it_is_asked_and_refuses_a_place_that_is_not_there() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let at_the_entry = local.create(json!({"documentId": document, "seed": 2})).await;
    let at_the_party = local.create(json!({"documentId": document, "seed": 2, "start": "the-party"})).await;
    assert_eq!(at_the_party.status, StatusCode::CREATED, "{}", at_the_party.body);
    assert_ne!(at_the_party.json()["view"], at_the_entry.json()["view"]);
    let made = at_the_party.json();
    let (id, token) = (made["sessionId"].as_str().unwrap(), made["token"].as_str().unwrap());
    let said = transcript(&local, id, token).await;
    assert!(said.iter().any(|t| t.contains("fair party")), "{said:?}");
    assert!(!said.iter().any(|t| t.contains("Welcome to the club fair")), "{said:?}");

    let nowhere = local.create(json!({"documentId": document, "start": "nowhere"})).await;
    assert_eq!(nowhere.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", nowhere.body);
    assert_eq!(nowhere.problem(), "urn:stagehand:problem:invalid-start");
    assert!(nowhere.json()["detail"].as_str().unwrap().contains("nowhere"), "{}", nowhere.body);
    let not_words = local.create(json!({"documentId": document, "start": 3})).await;
    assert_eq!(not_words.problem(), "urn:stagehand:problem:invalid-request", "{}", not_words.body);

    // A ChatMapper project starts at a conversation named by its title or id.
    let crossing = local.upload("the-crossing.xml").await;
    let entry = local.create(json!({"documentId": crossing, "seed": 1})).await;
    assert_eq!(entry.status, StatusCode::CREATED, "{}", entry.body);
    let missing = local.create(json!({"documentId": crossing, "start": "No Such Conversation"})).await;
    assert_eq!(missing.problem(), "urn:stagehand:problem:invalid-start", "{}", missing.body);
}

#[tokio::test]
async fn a_world_of_facts_answers_what_it_knows_and_leaves_the_rest_to_the_player() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    // Without a world the session waits on the fair's first command.
    let bare = local.create(json!({"documentId": document, "seed": 3})).await.json();
    assert!(action_ids(&bare["view"]).contains(&"done".to_owned()), "{}", bare["view"]);
    // With one, the command is carried out, the lines are taken and the ticket is known: the
    // player meets the menu, with the secret club open.
    let world = json!({"facts": {"You": {"HasTicket": true, "InClub": true, "Club": "Secret"}}});
    let made = local.create(json!({"documentId": document, "seed": 3, "world": world})).await;
    assert_eq!(made.status, StatusCode::CREATED, "{}", made.body);
    let made = made.json();
    let view = &made["view"];
    let actions = action_ids(view);
    assert!(!actions.contains(&"done".to_owned()) && actions.len() >= 4, "a menu with the secret club: {view}");
    let (id, token) = (made["sessionId"].as_str().unwrap(), made["token"].as_str().unwrap());
    let said = transcript(&local, id, token).await;
    assert!(said.iter().any(|t| t.contains("Welcome to the club fair")), "{said:?}");
    // After the player's choice the world goes on answering: the reply says what its moves said.
    let path = format!("/v1/sessions/{id}/apply");
    let choice = actions.last().unwrap().clone();
    let applied =
        local.call(Method::POST, &path, Some(token), Some("k1"), json!({"actionId": choice}).to_string()).await;
    assert_eq!(applied.status, StatusCode::OK, "{}", applied.body);
    let body = applied.json();
    assert!(body["driven"].as_array().is_some_and(|d| !d.is_empty()), "{body}");
    // The same key gives the same answer, byte for byte, and executes nothing.
    let again = local.call(Method::POST, &path, Some(token), Some("k1"), json!({"actionId": choice}).to_string()).await;
    assert_eq!((again.status, again.body), (applied.status, applied.body));
}

#[tokio::test]
async fn a_world_that_is_not_facts_is_refused_with_its_own_problem() {
    let local = Local::start(Limits::default()).await;
    let document = local.upload("club-fair.dialogue.md").await;
    let lua = std::fs::read_to_string(example("club-fair.world.lua")).unwrap();
    for world in [json!({"lua": lua}), json!({"facts": {"You": [1, 2]}}), json!("facts"), json!({"rules": {}})] {
        let refused = local.create(json!({"documentId": document, "world": world})).await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{world}: {}", refused.body);
        assert_eq!(refused.problem(), "urn:stagehand:problem:invalid-world", "{}", refused.body);
    }
    let metrics = local.call(Method::GET, "/metrics", None, None, "").await;
    assert!(metrics.body.contains("stagehand_sessions 0"), "no session was made: {}", metrics.body);
}

#[tokio::test]
async fn an_agent_machine_is_refused_as_not_served_yet() {
    let local = Local::start(Limits::default()).await;
    let machine = std::fs::read(example("agents/write-review-revise.toml")).unwrap();
    for path in ["/v1/documents", "/v1/documents?name=write-review-revise.toml"] {
        let refused = local.call(Method::POST, path, None, None, machine.clone()).await;
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", refused.body);
        assert_eq!(refused.problem(), "urn:stagehand:problem:unsupported-document", "{}", refused.body);
    }
    let listed = local.call(Method::GET, "/v1/documents", None, None, "").await.json();
    assert_eq!(listed["documents"], json!([]));
}
