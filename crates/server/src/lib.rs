//! `stagehand-server`: durable sessions over HTTP (issue 14). SQLite by default, PostgreSQL to
//! run several servers side by side. Decisions S1… are in `docs/design/server.md`.
//!
//! - [`store`]: the database (migrations, compare-and-swap advances, receipts, trace lines).
//! - [`exactly`]: an apply or input executed at most once per idempotency key, acknowledged
//!   after commit.
//! - [`app`]: the route table and the router; [`mod@routes`]: the handlers.
//! - [`mod@serve`]: listening and graceful shutdown; [`host`]: the one door to documents and sessions.
//! - [`mod@watch`]: `--watch DIR`, the writer's preview's folder.
//! - [`agents`]: agent playbook sessions, driven with the lineup's ports.
//! - [`opened`]: the documents this process keeps opened, within a budget.
//! - [`negotiate`]: which media type a route answers with, as `Accept` weighs them.

/// Writes a line to standard error, never panicking when it has gone. Tokens and request bodies
/// never reach it (decision S5).
#[macro_export]
#[doc(hidden)]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub mod agents;
pub mod app;
pub mod exactly;
pub mod host;
pub mod lanes;
pub mod live;
pub mod metrics;
pub mod negotiate;
pub mod opened;
pub mod problem;
pub mod routes;
pub mod scratch;
pub mod secret;
pub mod serve;
pub mod store;
pub mod wake;
pub mod watch;
pub mod world;

pub use app::{router, routes, AppState, Limits};
pub use serve::{run, serve, Config, ServeError, DEFAULT_DATABASE, DEFAULT_LISTEN};
pub use store::Store;
