//! Operations: health, metrics, the OpenAPI document.

use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

use crate::app::Shared;
use crate::problem::{Kind, Problem};

/// The OpenAPI 3.1 document, checked in beside the crate and kept in sync with the route table
/// by a test.
pub const OPENAPI: &str = include_str!("../../openapi.json");

/// `GET /healthz`: 200 while the database answers.
pub async fn healthz(State(state): State<Shared>) -> Result<Response, Problem> {
    state.store.ping().await.map_err(|_| Problem::new(Kind::Unavailable, "the database does not answer"))?;
    Ok(([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], "{\"status\":\"ok\"}").into_response())
}

/// `GET /metrics`: Prometheus text.
pub async fn metrics(State(state): State<Shared>) -> Result<Response, Problem> {
    let sessions = state.store.session_count().await?;
    let text = state.metrics.render(sessions);
    let media = HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
    Ok(([(header::CONTENT_TYPE, media)], text).into_response())
}

/// `GET /v1/openapi.json`.
pub async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], OPENAPI).into_response()
}
