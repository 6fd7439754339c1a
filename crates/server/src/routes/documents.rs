//! `POST /v1/documents` and `GET /v1/documents`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;

use crate::app::{now_ms, Shared};
use crate::problem::{Kind, Problem};

/// What an upload may say in its query.
#[derive(Debug, Deserialize)]
pub struct UploadQuery {
    /// The document's file name (its kind may be read off it).
    pub name: Option<String>,
}

/// `POST /v1/documents`: compile and check a document; `201 {documentId, kind, diagnostics}` or
/// `422` with the diagnostics.
pub async fn upload(
    State(state): State<Shared>,
    query: Result<Query<UploadQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let bytes = super::bytes(body)?;
    let name = query.ok().and_then(|Query(q)| q.name).and_then(|asked| file_name(&asked));
    let media = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(str::to_owned);
    // The permit goes with the compile, not the request: a compile that outlives its request
    // keeps it until it ends, so timed-out uploads cannot pile up compiles (and their memory).
    let permit = state.compiling.clone().acquire_owned().await.map_err(Problem::internal)?;
    let source = bytes.clone();
    let compiling = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        crate::host::open(&source, name.as_deref(), media.as_deref())
    });
    let opened = match tokio::time::timeout(state.limits.compile_timeout, compiling).await {
        Err(_) => {
            return Err(Problem::new(
                Kind::InvalidDocument,
                format!("the document did not compile within {} s", state.limits.compile_timeout.as_secs()),
            ))
        }
        Ok(joined) => joined.map_err(Problem::internal)?,
    };
    let opened = opened.map_err(|refused| {
        Problem::new(Kind::InvalidDocument, refused.detail).with("diagnostics", json!(refused.diagnostics))
    })?;
    let now = i64::try_from(now_ms()).unwrap_or(i64::MAX);
    let name = opened.document.name().to_owned();
    state.store.put_document(&opened.fingerprint, &opened.kind, &name, &bytes, now).await?;
    let body = json!({"documentId": opened.fingerprint, "kind": opened.kind, "diagnostics": opened.diagnostics});
    state.keep(&opened.fingerprint, Arc::new(opened.document), bytes.len());
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /v1/documents`: every document stored, oldest first.
pub async fn list(State(state): State<Shared>) -> Result<Response, Problem> {
    let documents = state.store.documents().await?;
    let listed: Vec<_> = documents
        .into_iter()
        .map(|(fingerprint, kind, name)| json!({"documentId": fingerprint, "kind": kind, "name": name}))
        .collect();
    Ok(Json(json!({ "documents": listed })).into_response())
}

/// The name asked for, cut to its last path segment (no folder of the client's reaches the
/// server), or `None` when nothing is left.
pub fn file_name(asked: &str) -> Option<String> {
    // Control characters never belong in a name (PostgreSQL refuses a NUL in text outright).
    let base: String = asked.rsplit(['/', '\\']).next().unwrap_or("").chars().filter(|c| !c.is_control()).collect();
    let base = base.trim();
    (!base.is_empty() && base != "." && base != "..").then(|| base.chars().take(200).collect())
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn a_name_is_its_last_segment() {
        assert_eq!(file_name("../../etc/club.dialogue.md").as_deref(), Some("club.dialogue.md"));
        assert_eq!(file_name("a\\b.xml").as_deref(), Some("b.xml"));
        assert_eq!(file_name(".."), None);
        assert_eq!(file_name(" "), None);
        assert_eq!(file_name("n\0.dialogue.md\n").as_deref(), Some("n.dialogue.md"), "no control characters");
        assert_eq!(file_name("\0"), None);
    }
}
