//! `POST /v1/sessions {documentId, snapshot}`: a new session put back from a snapshot that
//! `GET /v1/sessions/{id}/snapshot` gave (a save the page downloaded, `docs/design/web.md` W7).
//! It stands where the snapshot stood, with its journal (undo, restart) and its receipts (a key
//! it recorded answers the same); it gets an id and token of its own, and its trace and
//! transcript start afresh at the restore (W16). A snapshot of another document, or not a
//! session snapshot at all, is refused (`422 session-failed`) with the reason.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::app::{now_ms, Shared};
use crate::problem::{Kind, Problem};
use crate::secret::{new_token, random_hex, sha256_hex};
use crate::store::SessionRow;

/// Creates the session from `snapshot`; `201 {sessionId, token, view, version}` as a fresh one.
pub async fn create(state: Shared, document_id: String, snapshot: Value) -> Result<Response, Problem> {
    let document = state
        .document(&document_id)
        .await?
        .ok_or_else(|| Problem::new(Kind::NotFound, "no such document; upload it first"))?;
    let Value::Object(mut snapshot) = snapshot else {
        return Err(refused("it is not a JSON object"));
    };
    if let Some(Value::String(fingerprint)) = snapshot.get("fingerprint") {
        if *fingerprint != document_id {
            return Err(refused(&format!(
                "it was saved from the document {fingerprint}, not from {document_id}: load it into the document it \
                 was saved from"
            )));
        }
    }
    let id = random_hex(16);
    let token = new_token();
    snapshot.insert("sessionId".into(), json!(id));
    // The new session's trace starts at 1 (its records are its own; the saved session's stayed
    // with it); its call ids go on from the snapshot's.
    if let Some(Value::Object(sequences)) = snapshot.get_mut("sequences") {
        sequences.insert("trace".into(), json!(0));
    }
    let (view, stored) = {
        let mut session = document.restore(Value::Object(snapshot)).map_err(|e| refused(&e.to_string()))?;
        let stored = session.snapshot_value().map_err(|e| refused(&e.to_string()))?.to_string();
        (session.describe(), stored)
    };
    let row = SessionRow {
        id: id.clone(),
        token_hash: sha256_hex(token.as_bytes()),
        fingerprint: document_id,
        version: 1,
        snapshot: stored,
        // A session put back from a snapshot plays with no world: a world is not part of a
        // snapshot (S18), and a snapshot is sent alone (W16).
        world: None,
    };
    let now = i64::try_from(now_ms()).unwrap_or(i64::MAX);
    state.store.create_session(&row, &[], &[], now).await?;
    state.metrics.created();
    let body = json!({"sessionId": id, "token": token, "view": view, "version": 1});
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

fn refused(why: &str) -> Problem {
    Problem::new(Kind::SessionFailed, format!("the snapshot cannot be loaded: {why}"))
}
