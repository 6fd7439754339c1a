//! The load bench for `stagehand serve` (BENCHMARKS.md): applies per second and p50/p99 latency
//! with 1, 10 and 100 concurrent sessions, on SQLite and on PostgreSQL, and with two server
//! processes on one PostgreSQL database. Loopback only (it starts its own servers on
//! 127.0.0.1:0), bounded in time (`--seconds` per configuration).
//!
//! ```sh
//! cargo build --release -p stagehand --example serve_bench --bin stagehand
//! STAGEHAND_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test \
//!     target/release/examples/serve_bench --seconds 5
//! ```
//!
//! `--sessions 1,10,100` and `--databases sqlite,postgres` pick the rows; `--binary PATH` the
//! server binary (another build, to compare side by side).
//!
//! Each session is played by one client that applies, with a fresh idempotency key, what its
//! last answer's view offers (toward the end; `restart` at the end). A client moves to a new
//! session every 100 applies, so snapshots (which keep every receipt) stay the size of a real
//! playthrough.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use stagehand_server::scratch::ScratchDatabase;

const DOCUMENT: &str = "club-fair.dialogue.md";
const PER_SESSION: usize = 100;

struct Server(Child, String);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = Command::new("kill").args(["-TERM", &self.0.id().to_string()]).status();
        let _ = self.0.wait();
    }
}

fn start(binary: &PathBuf, database: &str, folder: &std::path::Path) -> Server {
    let mut child = Command::new(binary)
        .args(["serve", "--listen", "127.0.0.1:0", "--database", database])
        .current_dir(folder)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the binary starts");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("a line");
    let base = line.trim().strip_prefix("stagehand serve: listening on ").expect("the listening line").to_owned();
    Server(child, base)
}

struct Session {
    id: String,
    token: String,
    view: Value,
}

async fn create(client: &reqwest::Client, base: &str, document: &str, seed: u64) -> Session {
    let body = json!({"documentId": document, "seed": seed}).to_string();
    let created: Value = serde_json::from_str(
        &client.post(format!("{base}/v1/sessions")).body(body).send().await.unwrap().text().await.unwrap(),
    )
    .unwrap();
    Session {
        id: created["sessionId"].as_str().unwrap().to_owned(),
        token: created["token"].as_str().unwrap().to_owned(),
        view: created["view"].clone(),
    }
}

/// The next request toward the end, or a restart.
fn next(view: &Value) -> (&'static str, Value) {
    if let Some(question) = view["pendingQuestions"].as_array().and_then(|q| q.first()) {
        return ("input", json!({"questionId": question["questionId"], "text": "yes"}));
    }
    let ids: Vec<&str> =
        view["actions"].as_array().map(|a| a.iter().filter_map(|a| a["id"].as_str()).collect()).unwrap_or_default();
    let id = ["done", "next", "retry"]
        .into_iter()
        .find(|id| ids.contains(id))
        .or_else(|| ids.iter().copied().find(|id| id.starts_with("choose:")))
        .unwrap_or("restart");
    ("apply", json!({"actionId": id}))
}

async fn client_loop(base: String, document: String, seed: u64, until: Instant, latencies: Arc<Mutex<Vec<u32>>>) {
    let client = reqwest::Client::new();
    let mut mine = Vec::new();
    let mut session = create(&client, &base, &document, seed).await;
    let mut n = 0usize;
    while Instant::now() < until {
        if n > 0 && n.is_multiple_of(PER_SESSION) {
            session = create(&client, &base, &document, seed + n as u64).await;
        }
        let (route, body) = next(&session.view);
        let started = Instant::now();
        let response = client
            .post(format!("{base}/v1/sessions/{}/{route}", session.id))
            .bearer_auth(&session.token)
            .header("idempotency-key", format!("k{n}"))
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        mine.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
        let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        assert!(status == 200 || status == 409, "{status}: {text}");
        session.view = answer["view"].clone();
        n += 1;
    }
    latencies.lock().unwrap().extend(mine);
}

async fn run(label: &str, bases: &[String], sessions: usize, seconds: u64) {
    let client = reqwest::Client::new();
    let bytes = std::fs::read(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(DOCUMENT)).unwrap();
    let uploaded: Value = serde_json::from_str(
        &client
            .post(format!("{}/v1/documents?name={DOCUMENT}", bases[0]))
            .body(bytes)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    let document = uploaded["documentId"].as_str().unwrap().to_owned();
    let latencies = Arc::new(Mutex::new(Vec::new()));
    let started = Instant::now();
    let until = started + Duration::from_secs(seconds);
    let tasks: Vec<_> = (0..sessions)
        .map(|i| {
            tokio::spawn(client_loop(
                bases[i % bases.len()].clone(),
                document.clone(),
                i as u64,
                until,
                latencies.clone(),
            ))
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let elapsed = started.elapsed().as_secs_f64();
    let mut all = latencies.lock().unwrap().clone();
    all.sort_unstable();
    let at = |q: f64| all.get(((all.len() as f64 * q) as usize).min(all.len().saturating_sub(1))).copied().unwrap_or(0);
    println!(
        "| {label} | {sessions} | {} | {:.0} | {:.2} | {:.2} |",
        all.len(),
        all.len() as f64 / elapsed,
        f64::from(at(0.50)) / 1000.0,
        f64::from(at(0.99)) / 1000.0
    );
}

#[tokio::main]
async fn main() {
    let mut seconds = 5;
    let mut counts = vec![1, 10, 100];
    let mut databases = vec!["sqlite".to_owned(), "postgres".to_owned()];
    let mut binary = std::env::current_exe().unwrap().parent().unwrap().parent().unwrap().join("stagehand");
    let mut arguments = std::env::args().skip(1);
    while let Some(argument) = arguments.next() {
        match argument.as_str() {
            "--seconds" => seconds = arguments.next().and_then(|s| s.parse().ok()).expect("--seconds N"),
            "--binary" => binary = PathBuf::from(arguments.next().expect("--binary PATH")),
            "--sessions" => {
                let list = arguments.next().expect("--sessions N,N,…");
                counts = list.split(',').map(|n| n.parse().expect("--sessions N,N,…")).collect();
            }
            "--databases" => {
                databases =
                    arguments.next().expect("--databases sqlite,postgres").split(',').map(str::to_owned).collect();
            }
            other => panic!("unknown argument {other}"),
        }
    }
    let seconds = seconds.clamp(1, 60);
    println!("| database | sessions | applies | applies/s | p50 ms | p99 ms |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for &sessions in counts.iter().filter(|_| databases.iter().any(|d| d == "sqlite")) {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", folder.path().join("bench.db").display());
        let server = start(&binary, &url, folder.path());
        run("SQLite", std::slice::from_ref(&server.1), sessions, seconds).await;
    }
    if !databases.iter().any(|d| d == "postgres") {
        return;
    }
    let Ok(base) = std::env::var("STAGEHAND_TEST_POSTGRES") else {
        println!("(PostgreSQL skipped: STAGEHAND_TEST_POSTGRES is unset)");
        return;
    };
    for servers in [1, 2] {
        for &sessions in &counts {
            let folder = tempfile::tempdir().unwrap();
            let scratch = ScratchDatabase::create(&base).await.unwrap();
            let running: Vec<Server> = (0..servers).map(|_| start(&binary, scratch.url(), folder.path())).collect();
            let bases: Vec<String> = running.iter().map(|s| s.1.clone()).collect();
            let label = if servers == 1 { "PostgreSQL".to_owned() } else { "PostgreSQL, 2 servers".to_owned() };
            run(&label, &bases, sessions, seconds).await;
            drop(running);
            scratch.drop_database().await.unwrap();
        }
    }
}
