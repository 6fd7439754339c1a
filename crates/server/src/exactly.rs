//! Exactly once: an apply or input under an idempotency key executes at most once, and is
//! acknowledged only after the transaction that records it has committed (decision S2).
//!
//! 1. A response recorded under the key is sent again, byte for byte, if the request is the same
//!    (its hash matches), and is `422` if it is not.
//! 2. Otherwise the session is restored from its row, the request applied, and the new
//!    snapshot, the response, the trace lines and the transcript committed by compare-and-swap on
//!    the version read. If the version moved (another request, here or on another server,
//!    committed first), nothing was written and the request starts again from 1 on the new
//!    state, a bounded number of times. Two requests can never both advance from one state.

use axum::response::Response;
use serde_json::{json, Value};
use stagehand_protocol::{Receipt, View};

use crate::app::{now_ms, AppState};
use crate::host::Document;
use crate::problem::{stored, Kind, Problem};
use crate::secret::sha256_hex;
use crate::store::{Advance, Commit, SessionRow};

/// How many times a request is computed again on a moved session before `409`.
const ATTEMPTS: usize = 32;

/// What is asked of a session.
#[derive(Debug, Clone)]
pub enum Request {
    /// Apply an action.
    Apply {
        /// The action's id.
        action_id: String,
    },
    /// Answer a pending question with free text.
    Input {
        /// The question (the first pending one when absent).
        question_id: Option<String>,
        /// The text.
        text: String,
    },
}

impl Request {
    /// The hash a repeated request is recognised by.
    fn hash(&self) -> String {
        let canonical = match self {
            Request::Apply { action_id } => json!(["apply", action_id]),
            Request::Input { question_id, text } => json!(["input", question_id, text]),
        };
        sha256_hex(canonical.to_string().as_bytes())
    }
}

/// Runs `request` on the session `row` (already authorised) under `key`.
pub async fn run(state: &AppState, row: SessionRow, key: &str, request: &Request) -> Result<Response, Problem> {
    let hash = request.hash();
    let Some(_turn) = state.lanes.enter(&row.id).await else {
        return Err(Problem::new(
            Kind::TooManyRequests,
            "too many requests wait on this session; retry with the same key",
        ));
    };
    let id = row.id.clone();
    let mut row = Some(row);
    for _ in 0..ATTEMPTS {
        if let Some(recorded) = state.store.receipt(&id, key).await? {
            if recorded.request_hash != hash {
                return Err(Problem::new(
                    Kind::IdempotencyKeyReused,
                    "this idempotency key was used for another request",
                ));
            }
            state.metrics.replayed();
            return Ok(stored(recorded.status, recorded.body));
        }
        let current = match row.take() {
            Some(row) => row,
            None => state.store.session(&id).await?.ok_or_else(crate::routes::not_found)?,
        };
        let computed = compute(state, &current, key, request).await?;
        let advance = Advance {
            session_id: &id,
            from_version: current.version,
            snapshot: &computed.snapshot,
            key,
            request_hash: &hash,
            status: computed.status,
            body: &computed.body,
            trace: &computed.trace,
            transcript: &computed.transcript,
            now: i64::try_from(computed.now).unwrap_or(i64::MAX),
        };
        match state.store.commit(&advance).await? {
            Commit::Committed => {
                state.metrics.applied(computed.disposition);
                state.announce(&id);
                return Ok(stored(computed.status, computed.body));
            }
            Commit::Moved => state.metrics.retried(),
            Commit::Gone => return Err(crate::routes::not_found()),
        }
    }
    Err(Problem::new(Kind::Conflict, "the session kept moving; nothing was executed; retry with the same key"))
}

/// A request computed on one version of a session, ready to commit.
struct Computed {
    snapshot: String,
    status: u16,
    body: String,
    disposition: &'static str,
    trace: Vec<(i64, String)>,
    transcript: Vec<String>,
    now: u64,
}

async fn compute(state: &AppState, row: &SessionRow, key: &str, request: &Request) -> Result<Computed, Problem> {
    let document = state
        .document(&row.fingerprint)
        .await?
        .ok_or_else(|| Problem::internal(format!("the session's document {} is not stored", row.fingerprint)))?;
    // An agent machine's request makes port calls: computed on the blocking pool (S22).
    match crate::agents::ports(&state.lineup, &document) {
        None => compute_on(&document, row, key, request, None, now_ms()),
        Some(ports) => {
            let (row, key, request) = (row.clone(), key.to_owned(), request.clone());
            crate::agents::blocking(state, move || compute_on(&document, &row, &key, &request, Some(&ports), now_ms()))
                .await
        }
    }
}

/// Restores the session from its row, runs the request and takes what it made. Synchronous: a
/// session borrows its document and is never held across an await.
fn compute_on(
    document: &Document,
    row: &SessionRow,
    key: &str,
    request: &Request,
    ports: Option<&stagehand_worlds::ports::Bindings>,
    now: u64,
) -> Result<Computed, Problem> {
    let snapshot: Value = serde_json::from_str(&row.snapshot).map_err(Problem::internal)?;
    let mut session = document.restore(snapshot).map_err(|e| Problem::new(Kind::SessionFailed, e.to_string()))?;
    let receipt = match request {
        Request::Apply { action_id } => session.apply(action_id, key, now),
        Request::Input { question_id, text } => {
            let question = match question_id {
                Some(id) => id.clone(),
                None => session.describe().pending_questions.first().map(|q| q.question_id.clone()).unwrap_or_default(),
            };
            session.input(&question, text, key, now)
        }
    };
    let settled = match receipt {
        Receipt::Executed { .. } => crate::world::settle_with(&mut *session, row.world.as_deref(), ports, now)?,
        _ => crate::world::Settled::default(),
    };
    let view = session.describe();
    let trace = session
        .take_trace()
        .iter()
        .map(|record| (i64::try_from(record.sequence).unwrap_or(i64::MAX), record.to_json_line()))
        .collect();
    let snapshot = session.snapshot_value().map_err(|e| Problem::new(Kind::SessionFailed, e.to_string()))?.to_string();
    let version = row.version + 1;
    let (status, body, disposition, mut transcript) = respond(&receipt, &view, version);
    // What the session's world answered after the request (decision S18).
    let body = settled.attach(body);
    transcript.extend(transcript_lines(&settled.reported));
    Ok(Computed { snapshot, status, body, disposition, trace, transcript, now })
}

/// The response a receipt is answered with (decision S10): `200 {receipt, view, version}` when it
/// executed or failed, `409` problem with the reason (and the receipt) when it was rejected; the
/// transcript lines it adds.
pub fn respond(receipt: &Receipt, view: &View, version: i64) -> (u16, String, &'static str, Vec<String>) {
    match receipt {
        Receipt::Rejected { reason } => {
            let problem = Problem::new(Kind::ActionRejected, reason.clone())
                .with("receipt", json!(receipt))
                .with("view", json!(view))
                .with("version", json!(version));
            (409, problem.body(), "rejected", Vec::new())
        }
        Receipt::Executed { events, .. } => {
            let body = json!({"receipt": receipt, "view": view, "version": version}).to_string();
            (200, body, "executed", transcript_lines(events))
        }
        Receipt::Failed { .. } => {
            let body = json!({"receipt": receipt, "view": view, "version": version}).to_string();
            (200, body, "failed", Vec::new())
        }
    }
}

/// The lines of a transcript: what was said, continued, and the end.
pub fn transcript_lines(events: &[stagehand_protocol::Reported]) -> Vec<String> {
    events
        .iter()
        .filter(|event| matches!(event.kind.as_str(), "said" | "continued" | "ended"))
        .map(|event| json!(event).to_string())
        .collect()
}
