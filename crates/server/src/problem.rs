//! Errors as RFC 9457 problem details (`application/problem+json`), with a stable `type` per
//! kind of error (decision S6). This module owns their spelling.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

/// The media type of a problem.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// Every kind of error the server answers with. Its `type` is `urn:stagehand:problem:` and the
/// kind's name; a kind is added, never renamed or reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// No `Authorization: Bearer` token was sent (401).
    Unauthorized,
    /// No such resource, or not for this token (404): the same answer either way.
    NotFound,
    /// The body is not the JSON the route takes, or a parameter is malformed (400).
    InvalidRequest,
    /// An apply or input came without an `Idempotency-Key` header (400).
    MissingIdempotencyKey,
    /// The idempotency key was used for another request (422).
    IdempotencyKeyReused,
    /// The document does not compile, or its kind is not known (422).
    InvalidDocument,
    /// The action is not one the session offers now, or the text does not fit (409).
    ActionRejected,
    /// The session kept moving under the request; nothing was executed (409).
    Conflict,
    /// The body is larger than the route takes (413).
    PayloadTooLarge,
    /// Too many requests wait on this session (429).
    TooManyRequests,
    /// The session could not be created or restored from its document (422 / 500).
    SessionFailed,
    /// The route does not take this method (405).
    MethodNotAllowed,
    /// The server is shutting down or its database is unreachable (503).
    Unavailable,
    /// The request (its body included) took longer than the server waits (408).
    RequestTimeout,
    /// Something failed inside the server (500).
    Internal,
    /// A session's `world` is not one the server takes (422).
    InvalidWorld,
    /// A session's `start` is not a place its document can start at (422).
    InvalidStart,
    /// The document is of a kind the server does not serve (422). No longer answered: every
    /// kind is served since agent machines are (decision S19, revised); kept, never reused.
    UnsupportedDocument,
    /// An agent machine's session needs a port the server's lineup does not bind (422).
    PortsUnbound,
    /// An apply or input sent `If-Match` with a version the session is no longer at; nothing was
    /// executed (412, decision S29).
    SessionMoved,
    /// The request's `Accept` allows none of the media types the route answers with (406,
    /// decision S36).
    NotAcceptable,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 21] = [
        Kind::Unauthorized,
        Kind::NotFound,
        Kind::InvalidRequest,
        Kind::MissingIdempotencyKey,
        Kind::IdempotencyKeyReused,
        Kind::InvalidDocument,
        Kind::ActionRejected,
        Kind::Conflict,
        Kind::PayloadTooLarge,
        Kind::TooManyRequests,
        Kind::SessionFailed,
        Kind::MethodNotAllowed,
        Kind::Unavailable,
        Kind::RequestTimeout,
        Kind::Internal,
        Kind::InvalidWorld,
        Kind::InvalidStart,
        Kind::UnsupportedDocument,
        Kind::PortsUnbound,
        Kind::SessionMoved,
        Kind::NotAcceptable,
    ];

    /// The kind's name, the last part of its `type`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Unauthorized => "unauthorized",
            Kind::NotFound => "not-found",
            Kind::InvalidRequest => "invalid-request",
            Kind::MissingIdempotencyKey => "missing-idempotency-key",
            Kind::IdempotencyKeyReused => "idempotency-key-reused",
            Kind::InvalidDocument => "invalid-document",
            Kind::ActionRejected => "action-rejected",
            Kind::Conflict => "conflict",
            Kind::PayloadTooLarge => "payload-too-large",
            Kind::TooManyRequests => "too-many-requests",
            Kind::SessionFailed => "session-failed",
            Kind::MethodNotAllowed => "method-not-allowed",
            Kind::Unavailable => "unavailable",
            Kind::RequestTimeout => "request-timeout",
            Kind::Internal => "internal",
            Kind::InvalidWorld => "invalid-world",
            Kind::InvalidStart => "invalid-start",
            Kind::UnsupportedDocument => "unsupported-document",
            Kind::PortsUnbound => "ports-unbound",
            Kind::SessionMoved => "session-moved",
            Kind::NotAcceptable => "not-acceptable",
        }
    }

    /// The `type` URI.
    pub fn uri(self) -> String {
        format!("urn:stagehand:problem:{}", self.name())
    }

    fn title(self) -> &'static str {
        match self {
            Kind::Unauthorized => "A bearer token is required",
            Kind::NotFound => "Not found",
            Kind::InvalidRequest => "The request is not valid",
            Kind::MissingIdempotencyKey => "An Idempotency-Key header is required",
            Kind::IdempotencyKeyReused => "The idempotency key was used for another request",
            Kind::InvalidDocument => "The document does not compile",
            Kind::ActionRejected => "The action was rejected",
            Kind::Conflict => "The session moved; nothing was executed",
            Kind::PayloadTooLarge => "The body is too large",
            Kind::TooManyRequests => "Too many requests wait on this session",
            Kind::SessionFailed => "The session could not be run",
            Kind::MethodNotAllowed => "Method not allowed",
            Kind::Unavailable => "The server cannot serve now",
            Kind::RequestTimeout => "The request took too long",
            Kind::Internal => "The server failed",
            Kind::InvalidWorld => "The world is not one the server takes",
            Kind::InvalidStart => "The session cannot start there",
            Kind::UnsupportedDocument => "The server does not serve this kind of document yet",
            Kind::PortsUnbound => "The agent machine needs ports the server does not bind",
            Kind::SessionMoved => "The session moved since the version the request was chosen on",
            Kind::NotAcceptable => "None of the media types this route answers with is acceptable",
        }
    }

    /// The status a kind is answered with by default.
    pub fn status(self) -> StatusCode {
        match self {
            Kind::Unauthorized => StatusCode::UNAUTHORIZED,
            Kind::NotFound => StatusCode::NOT_FOUND,
            Kind::InvalidRequest | Kind::MissingIdempotencyKey => StatusCode::BAD_REQUEST,
            Kind::IdempotencyKeyReused
            | Kind::InvalidDocument
            | Kind::SessionFailed
            | Kind::InvalidWorld
            | Kind::InvalidStart
            | Kind::UnsupportedDocument
            | Kind::PortsUnbound => StatusCode::UNPROCESSABLE_ENTITY,
            Kind::ActionRejected | Kind::Conflict => StatusCode::CONFLICT,
            Kind::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Kind::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            Kind::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Kind::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Kind::RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            Kind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Kind::SessionMoved => StatusCode::PRECONDITION_FAILED,
            Kind::NotAcceptable => StatusCode::NOT_ACCEPTABLE,
        }
    }
}

/// A problem: a kind, a detail for a person, and extension members.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The kind.
    pub kind: Kind,
    /// What went wrong in this case.
    pub detail: String,
    /// More members (diagnostics, a receipt).
    pub extra: Map<String, Value>,
}

impl Problem {
    /// A problem of `kind` with `detail`.
    pub fn new(kind: Kind, detail: impl Into<String>) -> Problem {
        Problem { kind, detail: detail.into(), extra: Map::new() }
    }

    /// The same problem with one more member.
    pub fn with(mut self, name: &str, value: Value) -> Problem {
        self.extra.insert(name.to_owned(), value);
        self
    }

    /// The body, as sent.
    pub fn body(&self) -> String {
        let mut object = Map::new();
        object.insert("type".into(), self.kind.uri().into());
        object.insert("title".into(), self.kind.title().into());
        object.insert("status".into(), json!(self.kind.status().as_u16()));
        object.insert("detail".into(), self.detail.clone().into());
        for (name, value) in &self.extra {
            object.insert(name.clone(), value.clone());
        }
        Value::Object(object).to_string()
    }

    /// An internal failure: the detail says only that, the cause goes to standard error.
    pub fn internal(cause: impl std::fmt::Display) -> Problem {
        crate::note!("stagehand serve: internal error: {cause}");
        Problem::new(Kind::Internal, "the server failed; the request may be retried")
    }
}

impl From<crate::store::StoreError> for Problem {
    fn from(error: crate::store::StoreError) -> Problem {
        Problem::internal(error)
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut response = (self.kind.status(), self.body()).into_response();
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON));
        if self.kind == Kind::Unauthorized {
            headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}

/// A body sent as stored: JSON below 400, a problem from 400 on.
pub fn stored(status: u16, body: String) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let media = if status.as_u16() >= 400 { PROBLEM_JSON } else { "application/json" };
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(media));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_own_type() {
        let names: std::collections::BTreeSet<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names.len(), Kind::ALL.len());
    }

    #[test]
    fn a_problem_is_spelled_as_rfc_9457_says() {
        let body = Problem::new(Kind::NotFound, "no such session").with("x", json!(1)).body();
        assert_eq!(
            body,
            r#"{"type":"urn:stagehand:problem:not-found","title":"Not found","status":404,"detail":"no such session","x":1}"#
        );
    }
}
