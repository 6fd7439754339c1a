//! `GET /v1/watch` and `GET /v1/watch/source?path=PATH`: the watched folder's documents and a
//! listed document's text, for the writer's preview (`docs/design/web.md` W9). Both are `404`
//! when the server watches no folder.

use axum::extract::{Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use crate::app::Shared;
use crate::problem::{Kind, Problem};

fn not_watching() -> Problem {
    Problem::new(Kind::NotFound, "this server watches no folder: start it with stagehand serve --watch DIR")
}

/// `GET /v1/watch`: `{folder, documents: [{path, name, kind?, documentId?, diagnostics}]}`.
pub async fn listing(State(state): State<Shared>) -> Result<Response, Problem> {
    let watch = state.watch.get().ok_or_else(not_watching)?;
    Ok(Json(watch.listing()).into_response())
}

/// The query of `GET /v1/watch/source`.
#[derive(Debug, Deserialize)]
pub struct SourceQuery {
    /// A path as the listing names it.
    pub path: Option<String>,
}

/// `GET /v1/watch/source?path=PATH`: the file's text as it is now (`text/plain`), for a path the
/// listing names; any other path is `404`, so nothing outside the folder is ever read.
pub async fn source(
    State(state): State<Shared>,
    query: Result<Query<SourceQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, Problem> {
    let watch = state.watch.get().ok_or_else(not_watching)?;
    let path =
        query.ok().and_then(|Query(q)| q.path).filter(|p| !p.is_empty()).ok_or_else(|| {
            Problem::new(Kind::InvalidRequest, "name the document: ?path=PATH as GET /v1/watch lists it")
        })?;
    let file = watch
        .file(&path)
        .ok_or_else(|| Problem::new(Kind::NotFound, "the watched folder lists no document by this path"))?;
    let limit = state.limits.document_bytes as u64;
    let read = move || -> Result<Vec<u8>, Problem> {
        let gone = |_| Problem::new(Kind::NotFound, "the document is no longer in the watched folder");
        if std::fs::metadata(&file).map_err(gone)?.len() > limit {
            return Err(Problem::new(Kind::PayloadTooLarge, "the document is larger than the document limit"));
        }
        std::fs::read(&file).map_err(gone)
    };
    let bytes = tokio::task::spawn_blocking(read).await.map_err(Problem::internal)??;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let media = HeaderValue::from_static("text/plain; charset=utf-8");
    Ok(([(header::CONTENT_TYPE, media), (header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))], text)
        .into_response())
}
