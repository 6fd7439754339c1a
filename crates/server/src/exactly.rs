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
//!
//! When this process holds the session at the version it last committed (decision S25), step 1
//! and the restore are skipped: the request is computed on the kept session and committed by the
//! same compare-and-swap, whose unique key also refuses a key already recorded; either refusal
//! sends the request back to step 1.
//!
//! A request that names the version its view was of (`If-Match`, decision S29) is computed only
//! on that version: once step 1 found nothing under its key, a session at another version answers
//! `412 session-moved` and nothing is executed or recorded.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{HeaderMap, HeaderValue};
use axum::response::Response;
use serde::de::DeserializeOwned;
use serde_json::json;
use stagehand_protocol::{Receipt, View};

use crate::app::{now_ms, AppState};
use crate::live::{Answer, Computed, Source};
use crate::problem::{stored, Kind, Problem};
use crate::secret::{sha256_hex, token_matches};
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

/// How a request proves it may touch the session.
#[derive(Debug)]
pub enum Door {
    /// Its bearer token, not checked yet: checked against the session this process keeps, or
    /// against the row when none is kept (decision S25).
    Token(String),
    /// The session's row, already authorised.
    Row(SessionRow),
}

/// The door, the key and the body of an apply or input. When the key and body are good, the
/// token alone (checked later, against the kept session or the row); when either is not, the
/// token is checked against the row first, so a wrong token is `404` before anything else is said
/// (S5), then the key's problem, then the body's.
pub async fn admit<T: DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    id: &str,
    body: Result<Bytes, BytesRejection>,
) -> Result<(Door, Asked<T>), Problem> {
    let token = crate::routes::bearer(headers)?;
    let asked = (crate::routes::idempotency_key(headers), crate::routes::json::<T>(body), if_match(headers));
    match asked {
        (Ok(key), Ok(body), Ok(version)) => Ok((Door::Token(token.to_owned()), Asked { key, body, version })),
        (key, body, version) => {
            let row = crate::routes::authorize(state, headers, id).await?;
            Ok((Door::Row(row), Asked { key: key?, body: body?, version: version? }))
        }
    }
}

/// What an apply or input asks, read from its headers and body.
#[derive(Debug)]
pub struct Asked<T> {
    /// The idempotency key.
    pub key: String,
    /// The body.
    pub body: T,
    /// The version the request was chosen on (`If-Match`), when it names one.
    pub version: Option<i64>,
}

/// A session's version as its entity tag (`"7"`): the spelling an apply's `If-Match` is read in.
pub fn etag(version: i64) -> Result<HeaderValue, Problem> {
    HeaderValue::from_str(&format!("\"{version}\"")).map_err(Problem::internal)
}

/// The version an `If-Match` header names: `"7"` (the `ETag` a session is answered with) or `7`;
/// `None` without the header, or with `*` (any version).
fn if_match(headers: &HeaderMap) -> Result<Option<i64>, Problem> {
    let Some(value) = headers.get(axum::http::header::IF_MATCH) else { return Ok(None) };
    let bad = || {
        Problem::new(
            Kind::InvalidRequest,
            "If-Match must name one session version, as \"7\" (the version a view came with)",
        )
    };
    let text = value.to_str().map_err(|_| bad())?.trim();
    if text == "*" {
        return Ok(None);
    }
    let bare = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
    match bare.parse::<i64>() {
        Ok(version) if version > 0 => Ok(Some(version)),
        _ => Err(bad()),
    }
}

/// `412 session-moved`: the session is at `now`, not at the version the request was chosen on.
fn moved(asked: i64, now: i64) -> Problem {
    Problem::new(
        Kind::SessionMoved,
        format!(
            "the request was chosen on version {asked} of the session, which is now at version {now}; \
             nothing was executed: read the session again and choose anew"
        ),
    )
    .with("version", json!(now))
}

/// Runs `request` on the session `id` under `key`.
pub async fn run(
    state: &AppState,
    id: &str,
    door: Door,
    key: &str,
    expected: Option<i64>,
    request: &Request,
) -> Result<Response, Problem> {
    let hash = request.hash();
    let Some(_turn) = state.lanes.enter(id).await else {
        return Err(Problem::new(
            Kind::TooManyRequests,
            "too many requests wait on this session; retry with the same key",
        ));
    };
    let mut door = Some(door);
    let mut kept = false;
    for _ in 0..ATTEMPTS {
        let answer = match door.take() {
            Some(Door::Token(token)) => {
                let source = Source::Kept { token: token.clone() };
                match state.live.compute(id, source, key, request, now_ms()).await? {
                    // On the version asked for (or none was): the kept session's answer stands.
                    Answer::Computed(computed) if expected.is_none_or(|v| v == computed.from_version) => {
                        kept = true;
                        computed
                    }
                    // Not committed, the kept session's tentative answer is dropped (S25); the row
                    // says whether the key was recorded before the version is held against it.
                    Answer::Computed(_) | Answer::Miss => {
                        let row = state.store.session(id).await?;
                        let row = match row {
                            Some(row) if token_matches(&token, &row.token_hash) => row,
                            _ => return Err(crate::routes::not_found()),
                        };
                        match from_row(state, id, Some(row), key, &hash, expected, request).await? {
                            Ok(computed) => computed,
                            Err(done) => return Ok(done),
                        }
                    }
                }
            }
            Some(Door::Row(row)) => match from_row(state, id, Some(row), key, &hash, expected, request).await? {
                Ok(computed) => computed,
                Err(done) => return Ok(done),
            },
            None => match from_row(state, id, None, key, &hash, expected, request).await? {
                Ok(computed) => computed,
                Err(done) => return Ok(done),
            },
        };
        let advance = Advance {
            session_id: id,
            from_version: answer.from_version,
            snapshot: &answer.snapshot,
            key,
            request_hash: &hash,
            status: answer.status,
            body: &answer.body,
            trace: &answer.trace,
            transcript: &answer.transcript,
            now: i64::try_from(now_ms()).unwrap_or(i64::MAX),
        };
        match state.store.commit(&advance).await? {
            Commit::Committed => {
                state.live.confirm(id, answer.from_version + 1);
                state.metrics.applied(answer.disposition);
                state.announce(id);
                return Ok(stored(answer.status, answer.body));
            }
            // A kept session that lost the race, or a key already recorded: not a retry on a
            // moved row as far as anyone outside can tell, so not counted as one.
            Commit::Moved if std::mem::take(&mut kept) => {}
            Commit::Moved => state.metrics.retried(),
            Commit::Gone => return Err(crate::routes::not_found()),
        }
    }
    Err(Problem::new(Kind::Conflict, "the session kept moving; nothing was executed; retry with the same key"))
}

/// The careful way: the response recorded under the key if there is one (`Err`, to send as it
/// is), else the request computed on the session's row (read when not given), when the row is at
/// the `expected` version (if one is), else `412`.
async fn from_row(
    state: &AppState,
    id: &str,
    row: Option<SessionRow>,
    key: &str,
    hash: &str,
    expected: Option<i64>,
    request: &Request,
) -> Result<Result<Computed, Response>, Problem> {
    if let Some(recorded) = state.store.receipt(id, key).await? {
        if recorded.request_hash != hash {
            return Err(Problem::new(Kind::IdempotencyKeyReused, "this idempotency key was used for another request"));
        }
        state.metrics.replayed();
        return Ok(Err(stored(recorded.status, recorded.body)));
    }
    let row = match row {
        Some(row) => row,
        None => state.store.session(id).await?.ok_or_else(crate::routes::not_found)?,
    };
    if let Some(asked) = expected.filter(|v| *v != row.version) {
        return Err(moved(asked, row.version));
    }
    let document = state
        .document(&row.fingerprint)
        .await?
        .ok_or_else(|| Problem::internal(format!("the session's document {} is not stored", row.fingerprint)))?;
    // An agent machine's request makes port calls: computed on the blocking pool from its row,
    // never kept in a session thread, which must not block (S22, S25).
    if let Some(ports) = crate::agents::ports(&state.lineup, &document) {
        let (key, request) = (key.to_owned(), request.clone());
        let compute = move || crate::live::compute_from_row(&document, &row, &key, &request, &ports, now_ms());
        return crate::agents::blocking(state, compute).await.map(Ok);
    }
    match state.live.compute(id, Source::Row { row, document }, key, request, now_ms()).await? {
        Answer::Computed(computed) => Ok(Ok(computed)),
        Answer::Miss => Err(Problem::internal("a session thread missed a session it was given")),
    }
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
        Receipt::Executed { events, .. } => (200, answer(receipt, view, version), "executed", transcript_lines(events)),
        Receipt::Failed { .. } => (200, answer(receipt, view, version), "failed", Vec::new()),
    }
}

/// `{receipt, view, version}`, written straight from the borrowed parts (the bytes
/// `json!({...}).to_string()` gives, without building a JSON value first).
fn answer(receipt: &Receipt, view: &View, version: i64) -> String {
    #[derive(serde::Serialize)]
    struct Answer<'a> {
        receipt: &'a Receipt,
        view: &'a View,
        version: i64,
    }
    serde_json::to_string(&Answer { receipt, view, version })
        .unwrap_or_else(|_| json!({"receipt": receipt, "view": view, "version": version}).to_string())
}

/// The lines of a transcript: what was said, continued, and the end.
pub fn transcript_lines(events: &[stagehand_protocol::Reported]) -> Vec<String> {
    events
        .iter()
        .filter(|event| matches!(event.kind.as_str(), "said" | "continued" | "ended"))
        .map(|event| json!(event).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use stagehand_protocol::{Outcome, Receipt, View};

    use super::*;

    #[test]
    fn an_answer_is_the_bytes_of_its_json_value() {
        let receipt = Receipt::Failed { error: "the world said \"no\" ✓".to_owned() };
        let view = View::empty();
        let built = json!({"receipt": receipt, "view": view, "version": 7}).to_string();
        assert_eq!(answer(&receipt, &view, 7), built);
        let executed = Receipt::Executed { outcome: Outcome::Awaiting, events: Vec::new() };
        let (status, body, disposition, _) = respond(&executed, &view, 3);
        assert_eq!((status, disposition), (200, "executed"));
        assert_eq!(body, json!({"receipt": executed, "view": view, "version": 3}).to_string());
    }
}
