//! The store on SQLite (a temp file) and on PostgreSQL (a scratch database, when
//! `STAGEHAND_TEST_POSTGRES` is set; otherwise a printed notice).

use super::*;
use crate::scratch::{postgres_url, ScratchDatabase};

fn row(id: &str) -> SessionRow {
    SessionRow {
        id: id.to_owned(),
        token_hash: "h".to_owned(),
        fingerprint: "fp".to_owned(),
        version: 1,
        snapshot: "{\"n\":0}".to_owned(),
        world: None,
    }
}

fn advance<'a>(id: &'a str, from: i64, key: &'a str, snapshot: &'a str, trace: &'a [(i64, String)]) -> Advance<'a> {
    Advance {
        session_id: id,
        from_version: from,
        snapshot,
        key,
        request_hash: "r",
        status: 200,
        body: "{\"ok\":true}",
        trace,
        transcript: &[],
        now: 5,
    }
}

/// Everything the store promises, on one store.
async fn holds(store: &Store) {
    store.put_document("fp", "script", "a.dialogue.md", b"# A", 1).await.unwrap();
    store.put_document("fp", "script", "again.dialogue.md", b"# A", 2).await.unwrap();
    let documents = store.documents().await.unwrap();
    assert_eq!(documents, vec![("fp".to_owned(), "script".to_owned(), "a.dialogue.md".to_owned())]);
    assert_eq!(store.document("fp").await.unwrap().unwrap().2, b"# A".to_vec());
    assert!(store.document("nope").await.unwrap().is_none());

    store.create_session(&row("s1"), &[(1, "t1".to_owned())], &["hello".to_owned()], 1).await.unwrap();
    assert_eq!(store.session("s1").await.unwrap().unwrap().version, 1);
    assert_eq!(store.session_count().await.unwrap(), 1);

    // Two advances from version 1: the first commits, the second finds the version moved.
    let trace = [(2, "t2".to_owned())];
    assert_eq!(store.commit(&advance("s1", 1, "k1", "{\"n\":1}", &trace)).await.unwrap(), Commit::Committed);
    let again = [(2, "t2-other".to_owned())];
    assert_eq!(store.commit(&advance("s1", 1, "k2", "{\"n\":9}", &again)).await.unwrap(), Commit::Moved);
    let session = store.session("s1").await.unwrap().unwrap();
    assert_eq!((session.version, session.snapshot.as_str()), (2, "{\"n\":1}"));
    // The same key again, from the new version: the unique key refuses it.
    let next = [(3, "t3".to_owned())];
    assert_eq!(store.commit(&advance("s1", 2, "k1", "{\"n\":2}", &next)).await.unwrap(), Commit::Moved);
    assert_eq!(store.session("s1").await.unwrap().unwrap().version, 2);
    let receipt = store.receipt("s1", "k1").await.unwrap().unwrap();
    assert_eq!((receipt.status, receipt.body.as_str()), (200, "{\"ok\":true}"));
    assert!(store.receipt("s1", "k2").await.unwrap().is_none());
    let lines = store.trace("s1", 0, 100).await.unwrap();
    assert_eq!(lines, vec![(1, "t1".to_owned()), (2, "t2".to_owned())]);
    assert_eq!(store.trace("s1", 1, 100).await.unwrap(), vec![(2, "t2".to_owned())]);
    assert_eq!(store.transcript("s1", 0, 10).await.unwrap(), vec![(1, "hello".to_owned())]);
    // Several trace lines and transcript lines in one advance: the transcript numbers go on from
    // the last one stored.
    let lines = [(3, "t3".to_owned()), (4, "t\"4\\".to_owned())];
    let said = ["a".to_owned(), "b \"quoted\"".to_owned()];
    let more = Advance { transcript: &said, ..advance("s1", 2, "k3", "{\"n\":3}", &lines) };
    assert_eq!(store.commit(&more).await.unwrap(), Commit::Committed);
    assert_eq!(store.trace("s1", 2, 100).await.unwrap(), lines.to_vec());
    let transcript = store.transcript("s1", 0, 10).await.unwrap();
    let expected: Vec<(i64, String)> = vec![(1, "hello".into()), (2, said[0].clone()), (3, said[1].clone())];
    assert_eq!(transcript, expected);
    assert_eq!(store.session("s1").await.unwrap().unwrap().version, 3);
    assert_eq!(store.commit(&advance("gone", 1, "k", "{}", &[])).await.unwrap(), Commit::Gone);

    assert!(store.delete_session("s1").await.unwrap());
    assert!(!store.delete_session("s1").await.unwrap());
    assert!(store.session("s1").await.unwrap().is_none());
    assert!(store.trace("s1", 0, 100).await.unwrap().is_empty());
    assert!(store.receipt("s1", "k1").await.unwrap().is_none());

    // A session's world is stored with it, and a session without one reads back `None`.
    let with_world = SessionRow { world: Some("{\"facts\":{\"a\":true}}".to_owned()), ..row("w1") };
    store.create_session(&with_world, &[], &[], 1).await.unwrap();
    assert_eq!(store.session("w1").await.unwrap().unwrap().world, with_world.world);
    assert!(store.delete_session("w1").await.unwrap());
}

/// Twenty tasks race to advance one session from the state each read: every commit is from the
/// version before it, so the versions form one serial chain and nothing is lost or doubled.
async fn races(store: &Store) {
    store.create_session(&row("race"), &[], &[], 1).await.unwrap();
    let mut tasks = Vec::new();
    for worker in 0..20 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            loop {
                let session = store.session("race").await.unwrap().unwrap();
                let n: i64 = session.snapshot[5..session.snapshot.len() - 1].parse().unwrap();
                let snapshot = format!("{{\"n\":{}}}", n + 1);
                let key = format!("w{worker}");
                let trace = [(session.version + 1, key.clone())];
                match store.commit(&advance("race", session.version, &key, &snapshot, &trace)).await.unwrap() {
                    Commit::Committed => return,
                    Commit::Moved => continue,
                    Commit::Gone => panic!("the session went"),
                }
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let session = store.session("race").await.unwrap().unwrap();
    assert_eq!(session.version, 21);
    assert_eq!(session.snapshot, "{\"n\":20}");
    let lines = store.trace("race", 0, 100).await.unwrap();
    assert_eq!(lines.iter().map(|(seq, _)| *seq).collect::<Vec<_>>(), (2..=21).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_store_holds_on_sqlite() {
    let folder = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", folder.path().join("s.db").display());
    let store = Store::open(&url).await.unwrap();
    assert_eq!(store.backend(), Backend::Sqlite);
    holds(&store).await;
    races(&store).await;
    store.close().await;
    // Opening it again finds the schema applied and the data there.
    let store = Store::open(&url).await.unwrap();
    assert_eq!(store.session_count().await.unwrap(), 1);
    store.close().await;
}

#[tokio::test]
async fn the_store_holds_on_postgres() {
    let Some(base) = postgres_url() else { return };
    let scratch = ScratchDatabase::create(&base).await.unwrap();
    let store = Store::open(scratch.url()).await.unwrap();
    assert_eq!(store.backend(), Backend::Postgres);
    holds(&store).await;
    races(&store).await;
    // A second store on the same database (another server) migrates nothing and sees it all.
    let other = Store::open(scratch.url()).await.unwrap();
    assert_eq!(other.session_count().await.unwrap(), 1);
    other.close().await;
    store.close().await;
    scratch.drop_database().await.unwrap();
}

#[tokio::test]
async fn an_unknown_url_is_refused() {
    let error = Store::open("mysql://localhost/x").await.unwrap_err();
    assert!(matches!(error, StoreError::Url(_)), "{error}");
}

/// Servers started at once on one new database all come up: each finds the schema migrated by
/// whichever got there first (S3), however their migrations interleave.
#[tokio::test]
async fn stores_opened_at_once_on_one_new_postgres_database_all_open() {
    let Some(base) = postgres_url() else { return };
    for _round in 0..3 {
        let scratch = ScratchDatabase::create(&base).await.unwrap();
        let url = scratch.url().to_owned();
        let opening: Vec<_> = (0..6)
            .map(|_| {
                let url = url.clone();
                tokio::spawn(async move { Store::open(&url).await })
            })
            .collect();
        for opened in opening {
            let store = opened.await.unwrap().unwrap_or_else(|e| panic!("a server failed to start: {e}"));
            assert_eq!(store.session_count().await.unwrap(), 0);
            store.close().await;
        }
        scratch.drop_database().await.unwrap();
    }
}
