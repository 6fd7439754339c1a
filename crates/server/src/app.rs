//! The application: its state, its routes, and the router built from them (decision S7: the
//! route table is one list, which builds the router and which the OpenAPI test reads).

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;
use tokio::sync::{watch, Semaphore};
use tower_http::timeout::TimeoutLayer;

use crate::host::Document;
use crate::lanes::Lanes;
use crate::live::Live;
use crate::metrics::Metrics;
use crate::problem::{Kind, Problem};

use stagehand_ports::LineupSpec;

use crate::store::Store;

/// The limits the server holds clients to (decision S9).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The largest document body, in bytes.
    pub document_bytes: usize,
    /// The largest body of any other request, in bytes.
    pub request_bytes: usize,
    /// How many requests may wait on one session in one process.
    pub session_queue: usize,
    /// How long a request (not a live trace stream) may take, reading its body included.
    pub request_timeout: Duration,
    /// How long compiling an uploaded document may take.
    pub compile_timeout: Duration,
    /// How many uploads compile at once.
    pub compiles: usize,
    /// How long a client may take to send a request's head (its line and headers).
    pub header_timeout: Duration,
    /// How often a live trace stream polls the store when nothing wakes it.
    pub trace_poll: Duration,
    /// How many source bytes of opened documents the process keeps for later requests (the
    /// documents used longest ago are let go past it, and opened again when needed: S30).
    pub documents_kept_bytes: usize,
}

/// How often live trace streams poll by default, in milliseconds.
pub const DEFAULT_TRACE_POLL_MS: u64 = 250;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            document_bytes: 8 << 20,
            request_bytes: 64 << 10,
            session_queue: 64,
            request_timeout: Duration::from_secs(30),
            compile_timeout: Duration::from_secs(10),
            compiles: 2,
            header_timeout: Duration::from_secs(30),
            trace_poll: Duration::from_millis(DEFAULT_TRACE_POLL_MS),
            documents_kept_bytes: 256 << 20,
        }
    }
}

/// What every handler shares.
#[derive(Debug)]
pub struct AppState {
    /// The store.
    pub store: Store,
    /// The limits.
    pub limits: Limits,
    /// The counters.
    pub metrics: Metrics,
    /// Applies waiting their turn, by session.
    pub lanes: Lanes,
    /// The sessions kept in memory between requests, on their threads (decision S25).
    pub live: Live,
    /// Documents opened, by fingerprint, the most recently used kept (S30).
    pub documents: crate::opened::Opened,
    /// Uploads compiling now: a compile holds its permit until it really ends, even after its
    /// request timed out (S9), so at most `Limits::compiles` run at once.
    pub compiling: Arc<Semaphore>,
    /// Bumped after every commit in this process: wakes live trace streams at once (others
    /// poll).
    pub committed: watch::Sender<u64>,
    /// Becomes true when the server starts shutting down: live streams end.
    pub shutdown: watch::Sender<bool>,
    /// The agent lineup `--player`, `--captain` and `--judge` bound (decision S19): agent
    /// playbook sessions call these ports. Empty unless the flags name some.
    pub lineup: LineupSpec,
    /// Tells other servers on the same PostgreSQL database of commits (decision S20); `None` on
    /// SQLite.
    pub notifier: Option<crate::wake::Notifier>,
    /// The watched folder, under `--watch DIR`.
    pub watch: OnceLock<Arc<crate::watch::Watch>>,
}

/// The shared state.
pub type Shared = Arc<AppState>;

impl AppState {
    /// The state over a store.
    pub fn new(store: Store, limits: Limits) -> Shared {
        AppState::configured(store, limits, LineupSpec::default(), None)
    }

    /// The state over a store with an agent lineup and, on PostgreSQL, a notifier that tells
    /// other servers of commits ([`crate::wake`]).
    pub fn configured(
        store: Store,
        limits: Limits,
        lineup: LineupSpec,
        notifier: Option<crate::wake::Notifier>,
    ) -> Shared {
        Arc::new(AppState {
            store,
            limits,
            metrics: Metrics::default(),
            lanes: Lanes::new(limits.session_queue),
            live: Live::for_this_machine(),
            documents: crate::opened::Opened::new(limits.documents_kept_bytes),
            compiling: Arc::new(Semaphore::new(limits.compiles.max(1))),
            committed: watch::channel(0).0,
            shutdown: watch::channel(false).0,
            lineup,
            notifier,
            watch: OnceLock::new(),
        })
    }

    /// Says that the session `id` committed: wakes this process's live streams at once, and
    /// other servers' through PostgreSQL (decision S20).
    pub fn announce(&self, id: &str) {
        self.committed.send_modify(|n| *n = n.wrapping_add(1));
        if let Some(notifier) = &self.notifier {
            notifier.notify(id);
        }
    }

    /// The document with this fingerprint: kept, or opened from the store (and kept).
    pub async fn document(&self, fingerprint: &str) -> Result<Option<Arc<Document>>, Problem> {
        if let Some(document) = self.documents.get(fingerprint) {
            return Ok(Some(document));
        }
        let Some((_, name, body)) = self.store.document(fingerprint).await? else { return Ok(None) };
        let bytes = body.len();
        let opened = tokio::task::spawn_blocking(move || crate::host::open_with(&body, Some(&name), None, false))
            .await
            .map_err(Problem::internal)?
            .map_err(|refused| Problem::internal(format!("a stored document no longer opens: {}", refused.detail)))?;
        let document = Arc::new(opened.document);
        self.keep(fingerprint, document.clone(), bytes);
        Ok(Some(document))
    }

    /// Keeps an opened document, whose source is `bytes` long.
    pub fn keep(&self, fingerprint: &str, document: Arc<Document>, bytes: usize) {
        self.documents.keep(fingerprint, document, bytes);
    }
}

/// The host's time, Unix milliseconds.
pub fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Which body limit a route takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// A document upload.
    Document,
    /// Anything else.
    Request,
}

/// One route: its method, its path (in axum's and OpenAPI's `{name}` spelling), its body limit,
/// whether it streams (no request timeout), and its handler.
pub struct Route {
    /// The method.
    pub method: Method,
    /// The path.
    pub path: &'static str,
    /// The body limit it takes.
    pub body: Body,
    /// Whether the response may stream for long.
    pub streams: bool,
    /// The handler.
    pub handler: MethodRouter<Shared>,
}

/// Every route the server serves.
pub fn routes() -> Vec<Route> {
    use crate::routes::{documents, graph, ops, sessions, trace, watch};
    let route = |method: Method, path, body, streams, handler| Route { method, path, body, streams, handler };
    vec![
        route(Method::GET, "/healthz", Body::Request, false, on(MethodFilter::GET, ops::healthz)),
        route(Method::GET, "/metrics", Body::Request, false, on(MethodFilter::GET, ops::metrics)),
        route(Method::GET, "/v1/openapi.json", Body::Request, false, on(MethodFilter::GET, ops::openapi)),
        route(Method::POST, "/v1/documents", Body::Document, false, on(MethodFilter::POST, documents::upload)),
        route(Method::GET, "/v1/documents", Body::Request, false, on(MethodFilter::GET, documents::list)),
        route(Method::GET, "/v1/documents/{id}/graph", Body::Request, false, on(MethodFilter::GET, graph::graph)),
        route(Method::GET, "/v1/watch", Body::Request, false, on(MethodFilter::GET, watch::listing)),
        route(Method::GET, "/v1/watch/source", Body::Request, false, on(MethodFilter::GET, watch::source)),
        // A snapshot to load may be as large as a document (it keeps every receipt).
        route(Method::POST, "/v1/sessions", Body::Document, false, on(MethodFilter::POST, sessions::create)),
        route(Method::GET, "/v1/sessions/{id}", Body::Request, false, on(MethodFilter::GET, sessions::show)),
        route(Method::DELETE, "/v1/sessions/{id}", Body::Request, false, on(MethodFilter::DELETE, sessions::delete)),
        route(Method::POST, "/v1/sessions/{id}/apply", Body::Request, false, on(MethodFilter::POST, sessions::apply)),
        route(Method::POST, "/v1/sessions/{id}/input", Body::Request, false, on(MethodFilter::POST, sessions::input)),
        route(Method::GET, "/v1/sessions/{id}/trace", Body::Request, true, on(MethodFilter::GET, trace::trace)),
        route(
            Method::GET,
            "/v1/sessions/{id}/snapshot",
            Body::Request,
            false,
            on(MethodFilter::GET, sessions::snapshot),
        ),
    ]
}

/// The router over `state`.
pub fn router(state: Shared) -> Router {
    let limits = state.limits;
    let mut by_path: Vec<(&'static str, MethodRouter<Shared>)> = Vec::new();
    for route in routes() {
        let limit = match route.body {
            Body::Document => limits.document_bytes,
            Body::Request => limits.request_bytes,
        };
        let mut handler = route.handler.layer(DefaultBodyLimit::max(limit));
        if !route.streams {
            handler =
                handler.layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, limits.request_timeout));
        }
        match by_path.iter_mut().find(|(path, _)| *path == route.path) {
            Some((_, existing)) => *existing = std::mem::take(existing).merge(handler),
            None => by_path.push((route.path, handler)),
        }
    }
    let mut router = Router::new();
    for (path, handler) in by_path {
        router = router.route(path, handler.fallback(method_not_allowed));
    }
    router.fallback(no_route).layer(middleware::from_fn_with_state(state.clone(), count)).with_state(state)
}

/// The answer for a path no route serves.
pub const NO_ROUTE: &str = "no route serves this path";

/// What no API route takes: the web page's files for a `GET` or `HEAD` (`/`, `/app.js`, …,
/// embedded by `stagehand-web`), a `404` problem otherwise.
async fn no_route(method: Method, uri: axum::http::Uri) -> Response {
    if method == Method::GET || method == Method::HEAD {
        if let Some(asset) = stagehand_web::asset(uri.path()) {
            let headers = [(header::CONTENT_TYPE, asset.content_type), (header::CACHE_CONTROL, "no-cache")];
            return (headers, asset.bytes).into_response();
        }
    }
    Problem::new(Kind::NotFound, NO_ROUTE).into_response()
}

async fn method_not_allowed() -> Problem {
    Problem::new(Kind::MethodNotAllowed, "this route does not take this method")
}

/// Counts every request by its route's pattern (never by its concrete path: ids stay out of the
/// metrics).
async fn count(State(state): State<Shared>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or("fallback".to_owned(), |p| p.as_str().to_owned());
    let started = Instant::now();
    let mut response = next.run(request).await;
    state.metrics.request(&route, response.status().as_u16(), started.elapsed());
    // Bodies the framework refused (a body too large) become problems too.
    if response.status() == StatusCode::PAYLOAD_TOO_LARGE && !is_problem(&response) {
        response = Problem::new(Kind::PayloadTooLarge, "the body is larger than this route takes").into_response();
    } else if response.status() == StatusCode::REQUEST_TIMEOUT && !is_problem(&response) {
        response = Problem::new(Kind::RequestTimeout, "the request took too long").into_response();
    }
    response
}

fn is_problem(response: &Response) -> bool {
    response.headers().get(header::CONTENT_TYPE) == Some(&HeaderValue::from_static(crate::problem::PROBLEM_JSON))
}
