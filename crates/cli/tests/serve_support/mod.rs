//! What the `stagehand serve` tests share: the real binary started on an ephemeral loopback port
//! over a temp SQLite file or a scratch PostgreSQL database, an HTTP client, a player that picks
//! actions, and the check that a session's state is the replay of its acknowledged requests.

#![allow(dead_code)]

/// Runs a test body (an `async fn(Database)` of the including file) on SQLite and on
/// PostgreSQL: `on_both!(name)` makes `name::on_sqlite` and `name::on_postgres`.
#[allow(unused_macros)]
macro_rules! on_both {
    ($name:ident) => {
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn on_sqlite() {
                super::$name(super::Database::sqlite()).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn on_postgres() {
                let Some(database) = super::Database::postgres().await else { return };
                super::$name(database).await;
            }
        }
    };
}

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};
use stagehand_server::scratch::{postgres_url, ScratchDatabase};

/// An example's path.
pub fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

/// Where a test's data lives: a temp folder with a SQLite file, or a scratch PostgreSQL database.
pub enum Database {
    /// SQLite in a temp folder.
    Sqlite(tempfile::TempDir),
    /// A scratch database, dropped by [`Database::finish`].
    Postgres(ScratchDatabase, tempfile::TempDir),
}

impl Database {
    /// A temp SQLite file.
    pub fn sqlite() -> Database {
        Database::Sqlite(tempfile::tempdir().expect("a temp folder"))
    }

    /// A scratch PostgreSQL database, or `None` (after the printed notice) when
    /// `STAGEHAND_TEST_POSTGRES` is unset.
    pub async fn postgres() -> Option<Database> {
        let base = postgres_url()?;
        let scratch = ScratchDatabase::create(&base).await.expect("a scratch database on STAGEHAND_TEST_POSTGRES");
        Some(Database::Postgres(scratch, tempfile::tempdir().expect("a temp folder")))
    }

    /// The URL `--database` takes.
    pub fn url(&self) -> String {
        match self {
            Database::Sqlite(folder) => format!("sqlite:{}", folder.path().join("stagehand.db").display()),
            Database::Postgres(scratch, _) => scratch.url().to_owned(),
        }
    }

    /// The working folder for servers.
    pub fn folder(&self) -> &Path {
        match self {
            Database::Sqlite(folder) | Database::Postgres(_, folder) => folder.path(),
        }
    }

    /// Drops a scratch database.
    pub async fn finish(self) {
        if let Database::Postgres(scratch, _) = self {
            scratch.drop_database().await.expect("the scratch database drops");
        }
    }
}

/// A running `stagehand serve`.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Server {
    /// Starts the binary on an ephemeral loopback port and waits for its listening line.
    pub fn start(database: &Database) -> Server {
        Server::start_with(database, &[])
    }

    /// Starts it with more arguments.
    pub fn start_with(database: &Database, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_stagehand"))
            .args(["serve", "--listen", "127.0.0.1:0", "--database", &database.url()])
            .args(extra)
            .current_dir(database.folder())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().expect("its standard output");
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = send.send(line);
            // Keep reading so the server never blocks on a full pipe.
            let mut rest = String::new();
            while reader.read_line(&mut rest).map(|n| n > 0).unwrap_or(false) {
                rest.clear();
            }
        });
        let line = receive.recv_timeout(Duration::from_secs(60)).expect("the server says where it listens");
        let base = line
            .trim()
            .strip_prefix("stagehand serve: listening on ")
            .unwrap_or_else(|| panic!("an unexpected first line: {line:?}"))
            .to_owned();
        Server { child, base }
    }

    /// The URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// `kill -9`.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then the exit code.
    pub fn terminate(&mut self) -> Option<i32> {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-TERM", &pid]).status();
        self.child.wait().ok().and_then(|status| status.code())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A client with a bound on every request.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("a client")
}

/// A response as status and body text.
pub struct Answer {
    /// The status.
    pub status: u16,
    /// The body, byte for byte.
    pub body: String,
    /// The content type.
    pub media: String,
}

impl Answer {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    /// A problem's type.
    pub fn problem_type(&self) -> String {
        assert_eq!(self.media, "application/problem+json", "{}", self.body);
        self.json()["type"].as_str().unwrap_or_default().to_owned()
    }
}

/// Sends a request; `Err` when the server could not be reached or answered nothing.
pub async fn send(request: reqwest::RequestBuilder) -> Result<Answer, reqwest::Error> {
    let response = request.send().await?;
    let status = response.status().as_u16();
    let media = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let body = response.text().await?;
    Ok(Answer { status, body, media })
}

/// Uploads an example; its document id.
pub async fn upload(client: &reqwest::Client, server: &Server, name: &str) -> String {
    let bytes = std::fs::read(example(name)).expect("the example");
    let answer = send(client.post(server.url(&format!("/v1/documents?name={name}"))).body(bytes)).await.unwrap();
    assert_eq!(answer.status, 201, "{}", answer.body);
    answer.json()["documentId"].as_str().expect("an id").to_owned()
}

/// A session: its id and token.
#[derive(Debug, Clone)]
pub struct Made {
    /// The id.
    pub id: String,
    /// The token.
    pub token: String,
    /// The seed it was made with.
    pub seed: u64,
}

/// Creates a session of `document` with `seed`.
pub async fn create(client: &reqwest::Client, server: &Server, document: &str, seed: u64) -> Made {
    let body = json!({"documentId": document, "seed": seed}).to_string();
    let answer = send(client.post(server.url("/v1/sessions")).header("content-type", "application/json").body(body))
        .await
        .unwrap();
    assert_eq!(answer.status, 201, "{}", answer.body);
    let created = answer.json();
    Made {
        id: created["sessionId"].as_str().unwrap().to_owned(),
        token: created["token"].as_str().unwrap().to_owned(),
        seed,
    }
}

/// What a test asks of a session: the body it sends and the route.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// `apply {actionId}`.
    Apply(String),
    /// `input {questionId, text}`.
    Input(String, String),
    /// `input {text}`: the answer to the one pending question (an agent playbook's Boss turn).
    Text(String),
}

impl Ask {
    /// The route it is sent to.
    pub fn route(&self) -> &'static str {
        match self {
            Ask::Apply(_) => "apply",
            Ask::Input(..) | Ask::Text(_) => "input",
        }
    }

    /// Its body.
    pub fn body(&self) -> String {
        match self {
            Ask::Apply(action) => json!({"actionId": action}).to_string(),
            Ask::Input(question, text) => json!({"questionId": question, "text": text}).to_string(),
            Ask::Text(text) => json!({ "text": text }).to_string(),
        }
    }
}

/// Sends `ask` under `key`.
pub async fn ask(
    client: &reqwest::Client,
    server: &Server,
    session: &Made,
    key: &str,
    ask: &Ask,
) -> Result<Answer, reqwest::Error> {
    let url = server.url(&format!("/v1/sessions/{}/{}", session.id, ask.route()));
    send(
        client
            .post(url)
            .bearer_auth(&session.token)
            .header("idempotency-key", key)
            .header("content-type", "application/json")
            .body(ask.body()),
    )
    .await
}

/// The session as `GET /v1/sessions/{id}` shows it.
pub async fn show(client: &reqwest::Client, server: &Server, session: &Made) -> Result<Value, reqwest::Error> {
    let answer =
        send(client.get(server.url(&format!("/v1/sessions/{}", session.id))).bearer_auth(&session.token)).await?;
    assert_eq!(answer.status, 200, "{}", answer.body);
    Ok(answer.json())
}

/// The trace as JSON values.
pub async fn trace(client: &reqwest::Client, server: &Server, session: &Made) -> Vec<Value> {
    let answer =
        send(client.get(server.url(&format!("/v1/sessions/{}/trace", session.id))).bearer_auth(&session.token))
            .await
            .unwrap();
    assert_eq!(answer.status, 200, "{}", answer.body);
    answer.body.lines().map(|line| serde_json::from_str(line).expect("a JSON line")).collect()
}

/// What a player who wants to finish asks next, or `None` at the end: an answer to a question,
/// else done, next, the first option, retry.
pub fn toward_the_end(view: &Value) -> Option<Ask> {
    if view["status"] != "active" {
        return None;
    }
    if let Some(question) = view["pendingQuestions"].as_array().and_then(|q| q.first()) {
        return Some(Ask::Input(question["questionId"].as_str()?.to_owned(), "yes".to_owned()));
    }
    let ids: Vec<&str> = view["actions"].as_array()?.iter().filter_map(|a| a["id"].as_str()).collect();
    ["done", "next", "retry"]
        .iter()
        .find(|id| ids.contains(id))
        .map(|id| (*id).to_owned())
        .or_else(|| ids.iter().find(|id| id.starts_with("choose:")).map(|id| (*id).to_owned()))
        .map(Ask::Apply)
}

/// What a restless player asks next: any action at all (undo and restart keep a finished story
/// going), or an answer; `pick` chooses among them.
pub fn anything(view: &Value, pick: u64) -> Ask {
    if let Some(question) = view["pendingQuestions"].as_array().and_then(|q| q.first()) {
        return Ask::Input(question["questionId"].as_str().unwrap_or_default().to_owned(), "yes".to_owned());
    }
    let ids: Vec<String> = view["actions"]
        .as_array()
        .map(|actions| actions.iter().filter_map(|a| a["id"].as_str().map(str::to_owned)).collect())
        .unwrap_or_default();
    if ids.is_empty() {
        return Ask::Apply("next".to_owned());
    }
    Ask::Apply(ids[(pick % ids.len() as u64) as usize].clone())
}

/// A small deterministic generator (SplitMix64) for the tests' random choices.
pub struct Dice(pub u64);

impl Dice {
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// One request that committed: its key, what it asked, and the response as the server sent it.
#[derive(Debug, Clone)]
pub struct Committed {
    /// The idempotency key.
    pub key: String,
    /// What it asked.
    pub ask: Ask,
    /// The status.
    pub status: u16,
    /// The body.
    pub body: String,
}

impl Committed {
    /// The version its commit made.
    pub fn version(&self) -> i64 {
        serde_json::from_str::<Value>(&self.body).ok().and_then(|v| v["version"].as_i64()).unwrap_or(-1)
    }
}

/// Whether a response is one the server recorded under its key (it executed or was rejected).
pub fn committed(answer: &Answer) -> bool {
    answer.status == 200 || (answer.status == 409 && answer.problem_type() == "urn:stagehand:problem:action-rejected")
}

/// Checks that a session is exactly the serial replay of its committed requests: their versions
/// are 2, 3, … with none missing or doubled, every key appears in the trace once, and replaying
/// them in version order on a fresh session of the same document and seed gives the same
/// receipts and the same view.
pub async fn holds_as_replay(
    client: &reqwest::Client,
    server: &Server,
    session: &Made,
    document: &str,
    mut done: Vec<Committed>,
) {
    done.sort_by_key(Committed::version);
    let shown = show(client, server, session).await.unwrap();
    let last = shown["version"].as_i64().unwrap();
    let versions: Vec<i64> = done.iter().map(Committed::version).collect();
    assert_eq!(
        versions,
        (2..=last).collect::<Vec<_>>(),
        "each committed request advanced the session once, in a chain"
    );
    // No key executed twice: its start appears once in the trace.
    let records = trace(client, server, session).await;
    for record in &records {
        let sequence = record["sequence"].as_u64().unwrap();
        assert!(sequence >= 1);
    }
    let sequences: Vec<u64> = records.iter().map(|r| r["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequences, (1..=sequences.len() as u64).collect::<Vec<_>>(), "the trace has no gap");
    for item in &done {
        let starts = records
            .iter()
            .filter(|r| matches!(r["type"].as_str(), Some("apply.started" | "input.received")))
            .filter(|r| r["payload"]["key"] == item.key.as_str())
            .count();
        assert_eq!(starts, 1, "the key {} executed once", item.key);
    }
    // The replay.
    let bytes = std::fs::read(example(document)).unwrap();
    let opened = stagehand_documents::Document::open(document, &bytes, &Default::default()).unwrap();
    let mut local = opened.start(&session.id, session.seed, 0).unwrap();
    for item in &done {
        let receipt = match &item.ask {
            Ask::Apply(action) => local.apply(action, &item.key, 0),
            Ask::Input(question, text) => local.input(question, text, &item.key, 0),
            Ask::Text(text) => {
                let question = local.describe().pending_questions.first().map(|q| q.question_id.clone());
                local.input(&question.unwrap_or_default(), text, &item.key, 0)
            }
        };
        let sent: Value = serde_json::from_str(&item.body).unwrap();
        assert_eq!(serde_json::to_value(&receipt).unwrap(), sent["receipt"], "the receipt of {}", item.key);
    }
    assert_eq!(serde_json::to_value(local.describe()).unwrap(), shown["view"], "the state is the replay");
}
