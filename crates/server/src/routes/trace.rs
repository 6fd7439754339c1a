//! `GET /v1/sessions/{id}/trace?after=SEQ`: the trace as JSON lines, or, when `Accept` weighs
//! `text/event-stream` higher (S36), a live stream of server-sent events that starts after `SEQ` (or
//! the `Last-Event-ID` a reconnecting client sends) and misses nothing: every event's id is its
//! sequence number, and lines are read from the store in order, so a stream resumed from the last
//! id it saw continues without a gap or a repeat (decision S11). It polls the store; a commit in
//! this process, or on another server through PostgreSQL's LISTEN/NOTIFY (S20), wakes it at once.

use std::collections::VecDeque;
use std::convert::Infallible;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::stream::{self, Stream};

use super::authorize;
use super::sessions::{after, After};
use crate::app::Shared;
use crate::problem::{Kind, Problem};

/// How many lines one read takes.
const PAGE: i64 = 1000;

/// The trace route.
pub async fn trace(
    State(state): State<Shared>,
    super::Id(id): super::Id,
    headers: HeaderMap,
    query: Result<Query<After>, axum::extract::rejection::QueryRejection>,
) -> Result<Response, Problem> {
    authorize(&state, &headers, &id).await?;
    let mut after = after(query)?;
    // JSON lines unless `Accept` weighs the event stream higher (S36).
    let live = crate::negotiate::choose(&headers, &["application/x-ndjson", "text/event-stream"])? == 1;
    if !live {
        // Every line after `after`, read a page at a time as the body is sent; the first page is
        // read before answering, so a store that does not answer is a problem, not a cut body.
        let first = state.store.trace(&id, after, PAGE).await?;
        let body = axum::body::Body::from_stream(pages(state, id, first));
        let media = (header::CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
        return Ok(([media, (header::VARY, HeaderValue::from_static("accept"))], body).into_response());
    }
    if let Some(last) = headers.get("last-event-id") {
        after = last
            .to_str()
            .ok()
            .and_then(|v| v.trim().parse::<i64>().ok())
            .filter(|n| *n >= 0)
            .ok_or_else(|| Problem::new(Kind::InvalidRequest, "Last-Event-ID must be a sequence number"))?;
    }
    let mut response = Sse::new(live_stream(state, id, after)).keep_alive(KeepAlive::default()).into_response();
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("accept"));
    Ok(response)
}

/// The trace's lines from `first` on as JSON lines, a page a chunk, until a page comes short.
/// A page the store cannot read cuts the body short, visibly (the connection fails), never
/// silently.
fn pages(
    state: Shared,
    id: String,
    first: Vec<(i64, String)>,
) -> impl Stream<Item = Result<String, crate::store::StoreError>> {
    stream::unfold((Some(first), None::<i64>), move |(page, after)| {
        let (state, id) = (state.clone(), id.clone());
        async move {
            let page = match (page, after) {
                (Some(page), _) => page,
                (None, Some(after)) => match state.store.trace(&id, after, PAGE).await {
                    Ok(page) => page,
                    Err(error) => return Some((Err(error), (None, None))),
                },
                (None, None) => return None,
            };
            let more = page.last().map(|(seq, _)| *seq).filter(|_| page.len() as i64 == PAGE);
            let chunk: String = page.into_iter().flat_map(|(_, line)| [line, "\n".to_owned()]).collect();
            Some((Ok(chunk), (None, more)))
        }
    })
}

struct Cursor {
    state: Shared,
    id: String,
    after: i64,
    ready: VecDeque<(i64, String)>,
    committed: tokio::sync::watch::Receiver<u64>,
    shutdown: tokio::sync::watch::Receiver<bool>,
}

/// Every trace line after `after`, as it commits, until the session is deleted, the client goes,
/// or the server shuts down.
fn live_stream(state: Shared, id: String, after: i64) -> impl Stream<Item = Result<Event, Infallible>> {
    let committed = state.committed.subscribe();
    let shutdown = state.shutdown.subscribe();
    let cursor = Cursor { state, id, after, ready: VecDeque::new(), committed, shutdown };
    stream::unfold(cursor, |mut cursor| async move {
        loop {
            if *cursor.shutdown.borrow() {
                return None;
            }
            if let Some((seq, line)) = cursor.ready.pop_front() {
                cursor.after = seq;
                let event = Event::default().id(seq.to_string()).event("trace").data(line);
                return Some((Ok(event), cursor));
            }
            match cursor.state.store.trace(&cursor.id, cursor.after, PAGE).await {
                Ok(lines) if !lines.is_empty() => {
                    cursor.ready.extend(lines);
                    continue;
                }
                Ok(_) => {}
                Err(error) => {
                    crate::note!("stagehand serve: a live trace stream stopped: {error}");
                    return None;
                }
            }
            match cursor.state.store.session(&cursor.id).await {
                Ok(Some(_)) => {}
                _ => return None,
            }
            tokio::select! {
                _ = tokio::time::sleep(cursor.state.limits.trace_poll) => {}
                _ = cursor.committed.changed() => {}
                _ = cursor.shutdown.changed() => {}
            }
        }
    })
}
