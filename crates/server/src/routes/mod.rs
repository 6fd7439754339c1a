//! The handlers, one module per family, and what they share: reading a body, the bearer token,
//! the idempotency key.

pub mod documents;
pub mod graph;
pub mod ops;
pub mod restore;
pub mod sessions;
pub mod trace;
pub mod watch;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderMap, StatusCode};
use serde::de::DeserializeOwned;

use crate::app::AppState;
use crate::problem::{Kind, Problem};
use crate::secret::token_matches;
use crate::store::SessionRow;

/// The `{id}` of a route's path, as text. An id that is not UTF-8 once its percent-escapes are
/// decoded (`%ff`) is `400 invalid-request`, a problem like every other error (the framework's own
/// rejection was a `text/plain` body).
#[derive(Debug)]
pub struct Id(pub String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Id {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Id, Problem> {
        axum::extract::Path::<String>::from_request_parts(parts, state).await.map(|path| Id(path.0)).map_err(|_| {
            Problem::new(Kind::InvalidRequest, "the id in the path is not text (UTF-8) once its %-escapes are decoded")
        })
    }
}

/// The body's bytes, or the problem that stopped them (too large, cut off).
pub fn bytes(body: Result<Bytes, BytesRejection>) -> Result<Bytes, Problem> {
    body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            Problem::new(Kind::PayloadTooLarge, "the body is larger than this route takes")
        } else {
            Problem::new(Kind::InvalidRequest, "the body could not be read")
        }
    })
}

/// The body read as JSON of `T`, an object (every body this server takes is one; serde would
/// also read a struct from an array of its fields in order, which the API does not offer).
pub fn json<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, Problem> {
    let bytes = bytes(body)?;
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(Problem::new(Kind::InvalidRequest, "the body is not the JSON this route takes: a JSON object"));
    }
    serde_json::from_slice(&bytes).map_err(|error| {
        Problem::new(Kind::InvalidRequest, format!("the body is not the JSON this route takes: {error}"))
    })
}

/// The session `id`, if the request carries its token. A missing token is `401`; a wrong token
/// and a session that does not exist are the same `404` (decision S5).
pub async fn authorize(state: &AppState, headers: &HeaderMap, id: &str) -> Result<SessionRow, Problem> {
    let token = bearer(headers)?;
    let row = state.store.session(id).await?;
    match row {
        Some(row) if token_matches(token, &row.token_hash) => Ok(row),
        _ => Err(not_found()),
    }
}

/// The request's bearer token, not yet checked; `401` when there is none.
pub fn bearer(headers: &HeaderMap) -> Result<&str, Problem> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        // The scheme is a case-insensitive token (RFC 9110 §11.1).
        .and_then(|value| value.split_once(' ').filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer")))
        .map(|(_, token)| token)
        .map(str::trim)
        .filter(|token| !token.is_empty())
        .ok_or_else(|| Problem::new(Kind::Unauthorized, "send the session's token as Authorization: Bearer TOKEN"))
}

/// The one answer for a session that is not there or not this token's.
pub fn not_found() -> Problem {
    Problem::new(Kind::NotFound, "no such session for this token")
}

/// The `Idempotency-Key` header: 1 to 255 visible ASCII characters.
pub fn idempotency_key(headers: &HeaderMap) -> Result<String, Problem> {
    let value = headers.get("idempotency-key").ok_or_else(|| {
        Problem::new(Kind::MissingIdempotencyKey, "send an Idempotency-Key header with every apply and input")
    })?;
    let key = value.to_str().map_err(|_| bad_key())?;
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad_key());
    }
    Ok(key.to_owned())
}

fn bad_key() -> Problem {
    Problem::new(Kind::InvalidRequest, "the Idempotency-Key must be 1 to 255 visible ASCII characters")
}
