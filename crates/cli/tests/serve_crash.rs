//! Exactly once under failure, through the real binary (issue 14, item 5): two server processes
//! on one PostgreSQL database applying to one session at once, and `kill -9` at random moments
//! under a load of concurrent applies, restarted 20 times, every unacknowledged request retried
//! with its key. Each session must be the serial replay of what committed, every acknowledged
//! receipt must come back identical, and no key may execute twice. On SQLite and PostgreSQL.

#[macro_use]
mod serve_support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serve_support::*;

const DOCUMENT: &str = "club-fair.dialogue.md";

/// What the clients learnt: what committed (acknowledged), what was sent and never answered
/// (to retry with its key), and what was answered as not executed.
#[derive(Default)]
struct Ledger {
    committed: Vec<Vec<Committed>>,
    unanswered: Vec<(usize, String, Ask)>,
    not_executed: Vec<(usize, String)>,
    /// How many requests went unanswered (cut off by a kill) and were retried.
    retried: usize,
}

impl Ledger {
    fn new(sessions: usize) -> Ledger {
        Ledger { committed: vec![Vec::new(); sessions], ..Ledger::default() }
    }

    fn answered(&mut self, session: usize, key: String, ask: Ask, answer: &Answer) {
        if committed(answer) {
            self.committed[session].push(Committed { key, ask, status: answer.status, body: answer.body.clone() });
        } else {
            assert!(matches!(answer.status, 409 | 429), "{}: {}", answer.status, answer.body);
            self.not_executed.push((session, key));
        }
    }
}

/// A client that plays `session` with keys `PREFIX-N` until `turns` run out or the server goes.
async fn worker(
    server_base: String,
    sessions: Arc<Vec<Made>>,
    index: usize,
    prefix: String,
    turns: usize,
    seed: u64,
    ledger: Arc<Mutex<Ledger>>,
) {
    let client = client();
    let server = ServerAt(server_base);
    let session = &sessions[index];
    let mut dice = Dice(seed);
    for turn in 0..turns {
        let url = server.0.clone() + &format!("/v1/sessions/{}", session.id);
        let Ok(shown) = send(client.get(url).bearer_auth(&session.token)).await else { return };
        let next = anything(&shown.json()["view"], dice.next());
        let key = format!("{prefix}-{turn}");
        match ask_at(&client, &server.0, session, &key, &next).await {
            Ok(answer) => ledger.lock().unwrap().answered(index, key, next, &answer),
            Err(_) => {
                ledger.lock().unwrap().unanswered.push((index, key, next));
                return;
            }
        }
    }
}

struct ServerAt(String);

async fn ask_at(
    client: &reqwest::Client,
    base: &str,
    session: &Made,
    key: &str,
    what: &Ask,
) -> Result<Answer, reqwest::Error> {
    let (route, body) = (what.route(), what.body());
    send(
        client
            .post(format!("{base}/v1/sessions/{}/{route}", session.id))
            .bearer_auth(&session.token)
            .header("idempotency-key", key)
            .header("content-type", "application/json")
            .body(body),
    )
    .await
}

/// Retries every unanswered request with its key until it is answered.
async fn retry_unanswered(server: &Server, sessions: &[Made], ledger: &Mutex<Ledger>) {
    let client = client();
    let unanswered = std::mem::take(&mut ledger.lock().unwrap().unanswered);
    ledger.lock().unwrap().retried += unanswered.len();
    for (index, key, what) in unanswered {
        let answer =
            ask_at(&client, &server.base, &sessions[index], &key, &what).await.expect("the restarted server answers");
        ledger.lock().unwrap().answered(index, key, what, &answer);
    }
}

/// Every session is the replay of what committed; every acknowledged receipt comes back
/// identical; what was answered as not executed never ran.
async fn verify(server: &Server, sessions: &[Made], ledger: &Mutex<Ledger>) {
    let client = client();
    let (committed, not_executed) = {
        let ledger = ledger.lock().unwrap();
        assert!(ledger.unanswered.is_empty());
        (ledger.committed.clone(), ledger.not_executed.clone())
    };
    for (index, done) in committed.iter().enumerate() {
        for item in done {
            let again = ask(&client, server, &sessions[index], &item.key, &item.ask).await.unwrap();
            assert_eq!((again.status, &again.body), (item.status, &item.body), "the receipt under {}", item.key);
        }
        holds_as_replay(&client, server, &sessions[index], DOCUMENT, done.clone()).await;
    }
    for (index, key) in not_executed {
        let records = trace(&client, server, &sessions[index]).await;
        assert!(records.iter().all(|r| r["payload"]["key"] != key.as_str()), "{key} was answered as not executed");
    }
}

async fn crash_safety(database: Database) {
    let client = client();
    let sessions = {
        let server = Server::start(&database);
        let document = upload(&client, &server, DOCUMENT).await;
        let mut sessions = Vec::new();
        for seed in 0..3 {
            sessions.push(create(&client, &server, &document, seed).await);
        }
        sessions
    };
    let sessions = Arc::new(sessions);
    let ledger = Arc::new(Mutex::new(Ledger::new(sessions.len())));
    let mut dice = Dice(99);
    let mut kills = 0;
    for cycle in 0..20 {
        let mut server = Server::start(&database);
        retry_unanswered(&server, &sessions, &ledger).await;
        let mut workers = Vec::new();
        for index in 0..sessions.len() {
            for lane in 0..2 {
                let prefix = format!("c{cycle}-s{index}-w{lane}");
                workers.push(tokio::spawn(worker(
                    server.base.clone(),
                    sessions.clone(),
                    index,
                    prefix,
                    1000,
                    dice.next(),
                    ledger.clone(),
                )));
            }
        }
        tokio::time::sleep(Duration::from_millis(20 + dice.next() % 250)).await;
        server.kill();
        kills += 1;
        for worker in workers {
            worker.await.unwrap();
        }
    }
    let server = Server::start(&database);
    retry_unanswered(&server, &sessions, &ledger).await;
    verify(&server, &sessions, &ledger).await;
    let (total, retried) = {
        let ledger = ledger.lock().unwrap();
        (ledger.committed.iter().map(Vec::len).sum::<usize>(), ledger.retried)
    };
    eprintln!("crash safety: {kills} kills, {total} requests committed, {retried} cut off and retried");
    assert_eq!(kills, 20);
    assert!(total >= 20, "the load committed {total} requests");
    assert!(retried >= 5, "the kills cut off only {retried} requests");
    drop(server);
    database.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crash_safety_on_sqlite() {
    crash_safety(Database::sqlite()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn crash_safety_on_postgres() {
    let Some(database) = Database::postgres().await else { return };
    crash_safety(database).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_servers_on_one_postgres_serve_one_session() {
    let Some(database) = Database::postgres().await else { return };
    let (a, b) = (Server::start(&database), Server::start(&database));
    let client = client();
    let document = upload(&client, &a, DOCUMENT).await;
    let sessions = Arc::new(vec![create(&client, &b, &document, 11).await]);
    let ledger = Arc::new(Mutex::new(Ledger::new(1)));
    let mut workers = Vec::new();
    for lane in 0..8u64 {
        let base = if lane % 2 == 0 { a.base.clone() } else { b.base.clone() };
        let prefix = format!("w{lane}");
        workers.push(tokio::spawn(worker(base, sessions.clone(), 0, prefix, 12, lane, ledger.clone())));
    }
    for worker in workers {
        worker.await.unwrap();
    }
    let committed = ledger.lock().unwrap().committed[0].len();
    assert!(committed >= 12, "{committed} committed");
    verify(&a, &sessions, &ledger).await;
    verify(&b, &sessions, &ledger).await;
    drop((a, b));
    database.finish().await;
}
