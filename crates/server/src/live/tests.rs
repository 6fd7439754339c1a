//! The session threads: a kept session is used only at a confirmed version and for its own
//! token, what they compute is what a session played locally gives, the snapshots they write
//! carry no receipts, and the number kept is bounded.

use serde_json::Value;

use super::*;
use crate::secret::sha256_hex;

const TOKEN: &str = "sht_right";

fn document() -> Arc<Document> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/club-fair.dialogue.md");
    let bytes = std::fs::read(path).unwrap();
    Arc::new(crate::host::open(&bytes, Some("club-fair.dialogue.md"), None).unwrap().document)
}

/// A fresh session's row at version 1.
fn row(document: &Document, id: &str, seed: u64) -> SessionRow {
    let mut session = document.start(id, seed, 0).unwrap();
    SessionRow {
        id: id.to_owned(),
        token_hash: sha256_hex(TOKEN.as_bytes()),
        fingerprint: document.fingerprint().to_owned(),
        version: 1,
        snapshot: session.snapshot_value().unwrap().to_string(),
        world: None,
    }
}

/// The first action a view offers toward the end (a restart at the end).
fn next(view: &Value) -> Request {
    let ids: Vec<&str> =
        view["actions"].as_array().map(|a| a.iter().filter_map(|a| a["id"].as_str()).collect()).unwrap_or_default();
    let id = ["done", "next", "retry"]
        .into_iter()
        .find(|id| ids.contains(id))
        .or_else(|| ids.iter().copied().find(|id| id.starts_with("choose:")))
        .unwrap_or("restart");
    Request::Apply { action_id: id.to_owned() }
}

fn computed(answer: Answer) -> Computed {
    match answer {
        Answer::Computed(computed) => computed,
        Answer::Miss => panic!("a miss where a computation was due"),
    }
}

fn kept() -> Source {
    Source::Kept { token: TOKEN.to_owned() }
}

#[tokio::test]
async fn a_kept_session_is_used_only_once_its_commit_is_confirmed_and_only_for_its_token() {
    let document = document();
    let live = Live::start(2, 16);
    let first = row(&document, "s1", 7);
    let opening = document.restore(serde_json::from_str(&first.snapshot).unwrap()).unwrap().describe();
    // Nothing kept yet: a miss.
    let asked = next(&serde_json::to_value(&opening).unwrap());
    assert!(matches!(live.compute("s1", kept(), "k1", &asked, 1).await.unwrap(), Answer::Miss));
    // From the row: computed on version 1.
    let source = Source::Row { row: first, document: document.clone() };
    let one = computed(live.compute("s1", source, "k1", &asked, 1).await.unwrap());
    assert_eq!(one.from_version, 1);
    // Not confirmed: the tentative copy is never used.
    assert!(matches!(live.compute("s1", kept(), "k2", &asked, 2).await.unwrap(), Answer::Miss));
    // Confirmed at 2, it is; a wrong token misses and does not cost the session its place.
    let source = Source::Row { row: row(&document, "s1", 7), document: document.clone() };
    let again = computed(live.compute("s1", source, "k1", &asked, 1).await.unwrap());
    assert_eq!((again.from_version, &again.body), (1, &one.body), "the same request on the same state");
    live.confirm("s1", 2);
    let wrong = Source::Kept { token: "sht_wrong".to_owned() };
    assert!(matches!(live.compute("s1", wrong, "k2", &asked, 2).await.unwrap(), Answer::Miss));
    let view: Value = serde_json::from_str::<Value>(&again.body).unwrap()["view"].clone();
    let two = computed(live.compute("s1", kept(), "k2", &next(&view), 2).await.unwrap());
    assert_eq!(two.from_version, 2);
    // A confirmation of another version confirms nothing.
    live.confirm("s1", 2);
    assert!(matches!(live.compute("s1", kept(), "k3", &asked, 3).await.unwrap(), Answer::Miss));
    // Forgotten, a confirmed session is gone.
    let source = Source::Row { row: row(&document, "s2", 1), document: document.clone() };
    computed(live.compute("s2", source, "k1", &asked, 1).await.unwrap());
    live.confirm("s2", 2);
    live.forget("s2");
    assert!(matches!(live.compute("s2", kept(), "k2", &asked, 2).await.unwrap(), Answer::Miss));
}

#[tokio::test]
async fn kept_sessions_answer_as_a_session_played_locally_and_store_what_restores_them() {
    let document = document();
    let live = Live::start(1, 16);
    let first = row(&document, "play", 3);
    let no_receipts = document.start("x", 0, 0).unwrap().snapshot_value().unwrap()["receipts"].clone();
    let mut local = document.restore(serde_json::from_str(&first.snapshot).unwrap()).unwrap();
    let mut source = Some(Source::Row { row: first, document: document.clone() });
    let mut view = serde_json::to_value(local.describe()).unwrap();
    // Past RECEIPTS_IN_MEMORY, so the kept session is put back from its own snapshot on the way.
    for turn in 0..(3 * RECEIPTS_IN_MEMORY as i64) {
        let asked = next(&view);
        let key = format!("k{turn}");
        let answer = computed(live.compute("play", source.take().unwrap_or_else(kept), &key, &asked, 1).await.unwrap());
        assert_eq!(answer.from_version, turn + 1);
        live.confirm("play", turn + 2);
        let Request::Apply { action_id } = &asked else { panic!("only applies are asked") };
        let receipt = local.apply(action_id, &key, 1);
        let sent: Value = serde_json::from_str(&answer.body).unwrap();
        assert_eq!(sent["receipt"], serde_json::to_value(&receipt).unwrap(), "turn {turn}");
        assert_eq!(sent["view"], serde_json::to_value(local.describe()).unwrap(), "turn {turn}");
        assert_eq!(sent["version"], turn + 2);
        let snapshot: Value = serde_json::from_str(&answer.snapshot).unwrap();
        // Saves carry the receipts (W16, S27), unless they are stripped.
        assert_eq!(snapshot["receipts"] == no_receipts, STRIP_RECEIPTS, "turn {turn}");
        // The stored snapshot is the session: restored, it is where the local one is.
        let restored = document.restore(snapshot).unwrap();
        assert_eq!(serde_json::to_value(restored.describe()).unwrap(), sent["view"]);
        view = sent["view"].clone();
    }
}

#[tokio::test]
async fn a_session_thread_keeps_a_bounded_number_and_drops_the_least_recently_used() {
    let document = document();
    let live = Live::start(1, 4);
    let asked = Request::Apply { action_id: "restart".to_owned() };
    for n in 0..6 {
        let id = format!("s{n}");
        let source = Source::Row { row: row(&document, &id, n), document: document.clone() };
        computed(live.compute(&id, source, "k", &asked, 1).await.unwrap());
        live.confirm(&id, 2);
    }
    // Five kept went over four: back to three, the two least recently used gone.
    assert!(matches!(live.compute("s0", kept(), "k2", &asked, 2).await.unwrap(), Answer::Miss));
    assert!(matches!(live.compute("s1", kept(), "k2", &asked, 2).await.unwrap(), Answer::Miss));
    assert!(matches!(live.compute("s5", kept(), "k2", &asked, 2).await.unwrap(), Answer::Computed(_)));
}
