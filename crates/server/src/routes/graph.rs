//! `GET /v1/documents/{id}/graph?format=dot|mermaid`: the document's playbook drawn as
//! `stagehand graph` draws it (`stagehand_documents::render`). As text by default
//! (`text/vnd.graphviz` for DOT, `text/plain` for Mermaid); as JSON when `Accept` weighs
//! `application/json` higher (S36): `{format, graph, nodes: [{index, id, anchor?}]}`, where `id` is the name
//! the drawing gives the playbook's node `index` — what the page marks as the current node
//! (`docs/design/web.md` W15). A kind with no playbook (a ChatMapper project) has no graph: `404`.

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::json;
use stagehand_documents::Format;

use crate::app::Shared;
use crate::problem::{Kind, Problem};

/// The query of the graph route.
#[derive(Debug, Deserialize)]
pub struct GraphQuery {
    /// `dot` (the default) or `mermaid`.
    pub format: Option<String>,
}

/// The graph route.
pub async fn graph(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
    query: Result<Query<GraphQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, Problem> {
    let asked = query.ok().and_then(|Query(q)| q.format);
    let (format, name, offered, media) = match asked.as_deref() {
        None | Some("dot") => (Format::Dot, "dot", "text/vnd.graphviz", "text/vnd.graphviz; charset=utf-8"),
        Some("mermaid") => (Format::Mermaid, "mermaid", "text/plain", "text/plain; charset=utf-8"),
        Some(_) => return Err(Problem::new(Kind::InvalidRequest, "format must be dot or mermaid")),
    };
    // The drawing as text unless `Accept` weighs JSON higher (S36).
    let wants_json = crate::negotiate::choose(&headers, &[offered, "application/json"])? == 1;
    let document =
        state.document(&id).await?.ok_or_else(|| Problem::new(Kind::NotFound, "no such document; upload it first"))?;
    let playbook = document.playbook().ok_or_else(|| {
        Problem::new(Kind::NotFound, "this kind of document (a ChatMapper project) has no graph to draw")
    })?;
    let drawn = stagehand_documents::render(playbook, format);
    let vary = (header::VARY, HeaderValue::from_static("accept"));
    if !wants_json {
        return Ok(([(header::CONTENT_TYPE, HeaderValue::from_static(media)), vary], drawn).into_response());
    }
    let nodes: Vec<_> = (0..playbook.nodes.len())
        .map(|index| {
            let anchor = playbook.anchors.iter().find(|(_, node)| **node == index).map(|(slug, _)| slug.as_str());
            let mut node = json!({"index": index, "id": stagehand_documents::graph::node_id(index)});
            if let Some(anchor) = anchor {
                node["anchor"] = json!(anchor);
            }
            node
        })
        .collect();
    Ok(([vary], Json(json!({"format": name, "graph": drawn, "nodes": nodes}))).into_response())
}
