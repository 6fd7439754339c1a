//! The session routes: create, show, apply, input, snapshot, delete.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{authorize, json};
use crate::app::{now_ms, Shared};
use crate::exactly::{self, transcript_lines, Request};
use crate::host::Document;
use crate::problem::{Kind, Problem};
use crate::secret::{new_token, random_hex, sha256_hex};
use crate::store::SessionRow;
use stagehand_protocol::View;
use stagehand_worlds::ports::Bindings;

/// The body of `POST /v1/sessions`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Create {
    /// The document's id (its fingerprint).
    pub document_id: String,
    /// The seed random choices are drawn from (a random one when absent).
    pub seed: Option<u64>,
    /// Where to start: a DialogueDown anchor or a ChatMapper conversation (its entry when
    /// absent; decision S17).
    pub start: Option<String>,
    /// The world the session plays with: `{"facts": {…}}` (decision S18).
    pub world: Option<Value>,
    /// A snapshot to put the session back from (`GET …/snapshot`'s body), instead of starting.
    pub snapshot: Option<Value>,
}

/// `POST /v1/sessions`: `201 {sessionId, token, view, version}`. The token is shown here once.
pub async fn create(State(state): State<Shared>, body: Result<Bytes, BytesRejection>) -> Result<Response, Problem> {
    let asked: Create = json(body)?;
    if let Some(snapshot) = asked.snapshot {
        if asked.seed.is_some() || asked.start.is_some() || asked.world.is_some() {
            return Err(Problem::new(
                Kind::InvalidRequest,
                "a session loaded from a snapshot takes its seed and place from it: send documentId and snapshot alone",
            ));
        }
        return super::restore::create(state, asked.document_id, snapshot).await;
    }
    let world = asked.world.as_ref().map(crate::world::read).transpose()?;
    let document = state
        .document(&asked.document_id)
        .await?
        .ok_or_else(|| Problem::new(Kind::NotFound, "no such document; upload it first"))?;
    let id = random_hex(16);
    let token = new_token();
    let seed = asked.seed.unwrap_or_else(|| u64::from_str_radix(&random_hex(8), 16).unwrap_or(0));
    let now = now_ms();
    let ports = crate::agents::ports(&state.lineup, &document);
    crate::agents::refuse_unbound(&document, ports.as_ref())?;
    let (view, snapshot, trace, transcript) = match ports {
        None => begin(&document, &id, seed, asked.start.as_deref(), world.as_deref(), None, now)?,
        // An agent machine's opening may make port calls: on the blocking pool (S22).
        Some(ports) => {
            let (id, start, world) = (id.clone(), asked.start.clone(), world.clone());
            crate::agents::blocking(&state, move || {
                begin(&document, &id, seed, start.as_deref(), world.as_deref(), Some(&ports), now)
            })
            .await?
        }
    };
    let row = SessionRow {
        id: id.clone(),
        token_hash: sha256_hex(token.as_bytes()),
        fingerprint: asked.document_id,
        version: 1,
        snapshot,
        world,
    };
    state.store.create_session(&row, &trace, &transcript, i64::try_from(now).unwrap_or(i64::MAX)).await?;
    state.metrics.created();
    let body = json!({"sessionId": id, "token": token, "view": view, "version": 1});
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// What a new session's opening made: its view, snapshot, trace lines and transcript lines.
type Begun = (View, String, Vec<(i64, String)>, Vec<String>);

/// Starts a session of `document` and plays it on with its world (and, for an agent machine,
/// the lineup's ports) until a person must act. Synchronous: the session borrows its document.
fn begin(
    document: &Document,
    id: &str,
    seed: u64,
    start: Option<&str>,
    world: Option<&str>,
    ports: Option<&Bindings>,
    now: u64,
) -> Result<Begun, Problem> {
    let mut session =
        document.start_at(id, seed, start, now).map_err(|e| Problem::new(Kind::SessionFailed, e.to_string()))?;
    if let Some(refused) = start.and_then(|start| crate::world::refused_start(&*session, start)) {
        return Err(refused);
    }
    let mut transcript = transcript_lines(&session.take_opening());
    let settled = crate::world::settle_with(&mut *session, world, ports, now)?;
    transcript.extend(transcript_lines(&settled.reported));
    let trace: Vec<(i64, String)> = session
        .take_trace()
        .iter()
        .map(|record| (i64::try_from(record.sequence).unwrap_or(i64::MAX), record.to_json_line()))
        .collect();
    let snapshot = session.snapshot_value().map_err(|e| Problem::new(Kind::SessionFailed, e.to_string()))?.to_string();
    Ok((session.describe(), snapshot, trace, transcript))
}

/// The query of `GET /v1/sessions/{id}`.
#[derive(Debug, Deserialize)]
pub struct After {
    /// Lines after this number only.
    pub after: Option<i64>,
}

/// How many transcript lines one answer carries at most.
const PAGE: i64 = 1000;

/// `GET /v1/sessions/{id}`: the view, the version (also the `ETag`), and the transcript (after
/// `?after=N`).
pub async fn show(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
    query: Result<Query<After>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, Problem> {
    let row = authorize(&state, &headers, &id).await?;
    let after = after(query)?;
    let document = state
        .document(&row.fingerprint)
        .await?
        .ok_or_else(|| Problem::internal("a session's document is not stored"))?;
    let view = {
        let snapshot: Value = serde_json::from_str(&row.snapshot).map_err(Problem::internal)?;
        let session = document.restore(snapshot).map_err(|e| Problem::new(Kind::SessionFailed, e.to_string()))?;
        session.describe()
    };
    let lines = state.store.transcript(&id, after, PAGE).await?;
    let transcript: Vec<Value> = lines
        .into_iter()
        .map(|(n, line)| {
            let mut value: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if let Value::Object(object) = &mut value {
                object.insert("n".into(), json!(n));
            }
            value
        })
        .collect();
    let body = json!({
        "sessionId": row.id,
        "documentId": row.fingerprint,
        "version": row.version,
        "view": view,
        "transcript": transcript,
    });
    // The version as an entity tag, for an apply's `If-Match` (S29).
    Ok(([(header::ETAG, exactly::etag(row.version)?)], Json(body)).into_response())
}

/// The `after` of a query: 0 when absent, `400` when malformed or negative.
pub fn after(query: Result<Query<After>, axum::extract::rejection::QueryRejection>) -> Result<i64, Problem> {
    let Query(After { after }) =
        query.map_err(|_| Problem::new(Kind::InvalidRequest, "after must be a whole number"))?;
    match after {
        Some(n) if n < 0 => Err(Problem::new(Kind::InvalidRequest, "after must not be negative")),
        other => Ok(other.unwrap_or(0)),
    }
}

/// The body of `POST /v1/sessions/{id}/apply`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Apply {
    /// The action's id, as the view lists it.
    pub action_id: String,
}

/// `POST /v1/sessions/{id}/apply` with an `Idempotency-Key`: the receipt (decision S10); with
/// `If-Match`, only on that version of the session (`412` on another: decision S29).
pub async fn apply(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let (door, asked) = exactly::admit::<Apply>(&state, &headers, &id, body).await?;
    let request = Request::Apply { action_id: asked.body.action_id };
    exactly::run(&state, &id, door, &asked.key, asked.version, &request).await
}

/// The body of `POST /v1/sessions/{id}/input`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Input {
    /// The text.
    pub text: String,
    /// The question it answers (the first pending one when absent).
    pub question_id: Option<String>,
}

/// `POST /v1/sessions/{id}/input` with an `Idempotency-Key`: free text for a pending question
/// (`If-Match` as for apply).
pub async fn input(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let (door, asked) = exactly::admit::<Input>(&state, &headers, &id, body).await?;
    let Input { text, question_id } = asked.body;
    exactly::run(&state, &id, door, &asked.key, asked.version, &Request::Input { question_id, text }).await
}

/// `GET /v1/sessions/{id}/snapshot`: the session as plain data (the session layer's spelling).
pub async fn snapshot(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
) -> Result<Response, Problem> {
    let row = authorize(&state, &headers, &id).await?;
    let headers = [
        (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
        (header::ETAG, exactly::etag(row.version)?),
    ];
    Ok((headers, row.snapshot).into_response())
}

/// `DELETE /v1/sessions/{id}`: `204`; the session, its receipts, trace and transcript are gone.
pub async fn delete(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
) -> Result<Response, Problem> {
    authorize(&state, &headers, &id).await?;
    state.store.delete_session(&id).await?;
    state.live.forget(&id);
    Ok(StatusCode::NO_CONTENT.into_response())
}
