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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    use super::OPENAPI;
    use crate::problem::Kind;

    fn document() -> Value {
        serde_json::from_str(OPENAPI).expect("openapi.json is JSON")
    }

    #[test]
    fn the_openapi_document_lists_exactly_the_routes_served() {
        let document = document();
        assert_eq!(document["openapi"], "3.1.0");
        let mut documented = BTreeSet::new();
        for (path, item) in document["paths"].as_object().expect("paths") {
            for method in item.as_object().expect("a path item").keys() {
                documented.insert((method.to_uppercase(), path.clone()));
            }
        }
        let served: BTreeSet<(String, String)> =
            crate::app::routes().iter().map(|r| (r.method.as_str().to_owned(), r.path.to_owned())).collect();
        assert_eq!(documented, served);
    }

    #[test]
    fn the_openapi_document_lists_every_document_kind_as_the_documents_crate_spells_it() {
        let documented: BTreeSet<String> = document()["components"]["schemas"]["Uploaded"]["properties"]["kind"]
            ["enum"]
            .as_array()
            .expect("an enum")
            .iter()
            .map(|v| v.as_str().expect("a string").to_owned())
            .collect();
        // Every kind but the agent machine, whose upload is refused until the server answers port
        // calls (S19).
        let kinds: BTreeSet<String> = stagehand_documents::Kind::ALL
            .iter()
            .filter(|k| **k != stagehand_documents::Kind::Machine)
            .map(|k| k.wire_name().to_owned())
            .collect();
        assert_eq!(documented, kinds);
    }

    #[test]
    fn the_openapi_document_lists_every_problem_type() {
        let documented: BTreeSet<String> = document()["components"]["schemas"]["Problem"]["properties"]["type"]["enum"]
            .as_array()
            .expect("an enum")
            .iter()
            .map(|v| v.as_str().expect("a string").to_owned())
            .collect();
        let kinds: BTreeSet<String> = Kind::ALL.iter().map(|k| k.uri()).collect();
        assert_eq!(documented, kinds);
    }
}
