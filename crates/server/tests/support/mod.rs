//! The server in process: a SQLite store in a temp folder, the router, and requests sent to it
//! without a socket.

#![allow(dead_code)]

use std::path::PathBuf;

use axum::body::Body;
use axum::http::{header, Method, Request, StatusCode};
use serde_json::{json, Value};
use stagehand_server::{router, AppState, Limits, Store};
use tower::ServiceExt;

/// An example file's path.
pub fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)
}

/// A server in process.
pub struct Local {
    /// Its state (the lanes, the limits).
    pub state: stagehand_server::app::Shared,
    _folder: tempfile::TempDir,
}

/// An answer, read whole (a live stream's body is not read).
#[derive(Debug)]
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The content type.
    pub media: String,
    /// The body, as text.
    pub body: String,
}

impl Answer {
    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// A problem's type.
    pub fn problem(&self) -> String {
        self.json()["type"].as_str().unwrap_or("").to_owned()
    }
}

impl Local {
    /// A server with `limits` over a fresh SQLite file.
    pub async fn start(limits: Limits) -> Local {
        let folder = tempfile::tempdir().expect("a temp folder");
        let url = format!("sqlite:{}", folder.path().join("s.db").display());
        let store = Store::open(&url).await.expect("the store opens");
        Local { state: AppState::new(store, limits), _folder: folder }
    }

    /// Sends `request`.
    pub async fn send(&self, request: Request<Body>) -> Answer {
        let response = router(self.state.clone()).oneshot(request).await.expect("the router answers");
        let status = response.status();
        let media = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        if media.starts_with("text/event-stream") {
            return Answer { status, media, body: String::new() };
        }
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a body");
        Answer { status, media, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// Sends `body` to `path` with `method` and the session's token and a key, when given.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        key: Option<&str>,
        body: impl Into<Body>,
    ) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            request = request.header(header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if let Some(key) = key {
            request = request.header("idempotency-key", key);
        }
        self.send(request.body(body.into()).expect("a request")).await
    }

    /// Uploads an example; its id.
    pub async fn upload(&self, name: &str) -> String {
        let bytes = std::fs::read(example(name)).expect("an example");
        let answer = self.call(Method::POST, &format!("/v1/documents?name={name}"), None, None, bytes).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        answer.json()["documentId"].as_str().expect("an id").to_owned()
    }

    /// Creates a session with `body`; the answer.
    pub async fn create(&self, body: Value) -> Answer {
        self.call(Method::POST, "/v1/sessions", None, None, body.to_string()).await
    }

    /// Creates a session of `document`; its id and token.
    pub async fn session(&self, document: &str) -> (String, String) {
        let answer = self.create(json!({"documentId": document, "seed": 1})).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        let made = answer.json();
        (made["sessionId"].as_str().expect("an id").to_owned(), made["token"].as_str().expect("a token").to_owned())
    }
}
