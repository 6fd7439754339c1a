//! Serving: open the store, load the documents folder, listen, and shut down gracefully on
//! SIGTERM or ctrl-c (requests in flight finish; live streams end).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::app::{now_ms, router, AppState, Limits, Shared};
use stagehand_ports::{BindingError, LineupSpec};

use crate::store::{Backend, Store, StoreError};
use crate::wake::Notifier;

/// The database used when none is named: a SQLite file in the working folder.
pub const DEFAULT_DATABASE: &str = "sqlite:stagehand.db";

/// The address listened on when none is named.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7780";

/// How to serve; also `stagehand serve`'s flags (so they are declared once).
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// The address to listen on (`HOST:PORT`; port 0 picks a free one).
    #[arg(long, default_value = DEFAULT_LISTEN)]
    pub listen: String,
    /// The database URL: `sqlite:FILE` or `postgres://USER@HOST:PORT/DB`.
    #[arg(long, default_value = DEFAULT_DATABASE)]
    pub database: String,
    /// A folder whose documents are loaded at start (and listed by GET /v1/documents).
    #[arg(long)]
    pub documents: Option<PathBuf>,
    /// An agent player's port, for agent playbook sessions: `NAME=exec:COMMAND` or
    /// `NAME=openai:MODEL@URL` (repeat for each player; docs/design/ports.md PT1).
    #[arg(long = "player", value_name = "NAME=PORT")]
    pub players: Vec<String>,
    /// The Captain's port, for agent playbook sessions: `exec:COMMAND` or `openai:MODEL@URL`.
    #[arg(long, value_name = "PORT")]
    pub captain: Option<String>,
    /// The judge's port, for agent playbook sessions (the Captain's when absent).
    #[arg(long, value_name = "PORT")]
    pub judge: Option<String>,
    /// How often a live trace stream polls the database when nothing wakes it, in
    /// milliseconds (a commit on this server, or on another one through PostgreSQL's
    /// LISTEN/NOTIFY, wakes it at once).
    #[arg(long, value_name = "MS", default_value_t = crate::app::DEFAULT_TRACE_POLL_MS)]
    pub trace_poll_ms: u64,
    /// A folder to preview: its documents are loaded, opened again whenever their files change,
    /// and listed with their diagnostics by GET /v1/watch (the page's writer's preview).
    #[arg(long, value_name = "DIR")]
    pub watch: Option<PathBuf>,
    /// The limits.
    #[arg(skip)]
    pub limits: Limits,
}

impl Config {
    /// The agent lineup the flags bind (`--player`, `--captain`, `--judge`), read by the ports
    /// crate; a bad binding is refused before the server listens (decision S19).
    pub fn lineup(&self) -> Result<LineupSpec, ServeError> {
        LineupSpec::parse(&self.players, self.captain.as_deref(), self.judge.as_deref()).map_err(ServeError::Lineup)
    }

    /// The limits, with the trace poll the flags name.
    pub fn limits(&self) -> Limits {
        Limits { trace_poll: std::time::Duration::from_millis(self.trace_poll_ms.max(1)), ..self.limits }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            listen: DEFAULT_LISTEN.to_owned(),
            database: DEFAULT_DATABASE.to_owned(),
            documents: None,
            players: Vec::new(),
            captain: None,
            judge: None,
            trace_poll_ms: crate::app::DEFAULT_TRACE_POLL_MS,
            watch: None,
            limits: Limits::default(),
        }
    }
}

/// Why the server could not serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The store could not be opened.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The address could not be listened on, or serving failed.
    #[error("cannot listen on {0}: {1}")]
    Listen(String, std::io::Error),
    /// The documents folder could not be read.
    #[error("cannot read the documents folder {0}: {1}")]
    Documents(String, std::io::Error),
    /// A `--player`, `--captain` or `--judge` binding is malformed.
    #[error("a port binding is not valid: {0}")]
    Lineup(BindingError),
    /// The runtime could not be built.
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

/// Serves until SIGTERM or ctrl-c, on a runtime of its own. Prints
/// `stagehand serve: listening on http://ADDR` once it listens.
pub fn run(config: Config) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(ServeError::Runtime)?;
    runtime.block_on(serve(config))
}

/// Serves until SIGTERM or ctrl-c.
pub async fn serve(config: Config) -> Result<(), ServeError> {
    let lineup = config.lineup()?;
    let store = Store::open(&config.database).await?;
    let state = if store.backend() == Backend::Postgres {
        // Live streams on every server wake on a commit on any (decision S20).
        let (notifier, outgoing) = Notifier::new();
        let state = AppState::configured(store, config.limits(), lineup, Some(notifier));
        crate::wake::start(&config.database, &state, outgoing).await;
        state
    } else {
        AppState::configured(store, config.limits(), lineup, None)
    };
    if let Some(folder) = &config.documents {
        load_documents(&state, folder).await?;
    }
    if let Some(folder) = &config.watch {
        crate::watch::start(&state, folder)
            .await
            .map_err(|e| ServeError::Documents(folder.display().to_string(), e))?;
    }
    let listener = tokio::net::TcpListener::bind(&config.listen)
        .await
        .map_err(|e| ServeError::Listen(config.listen.clone(), e))?;
    let address = listener.local_addr().map_err(|e| ServeError::Listen(config.listen.clone(), e))?;
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "stagehand serve: listening on http://{address}");
    let _ = stdout.flush();
    serve_on(listener, state.clone(), stopped(state.clone())).await;
    state.store.close().await;
    Ok(())
}

/// Serves `state` on `listener` until `stop` resolves, then stops accepting, lets requests in
/// flight finish and returns once every connection has closed (live streams end when
/// `state.shutdown` is set), or when the longest a request may take has passed. Each connection has `limits.header_timeout` to send each request's
/// head (a slow client is dropped, decision S9); reading the body is within the request's own
/// timeout.
pub async fn serve_on(listener: tokio::net::TcpListener, state: Shared, stop: impl std::future::Future<Output = ()>) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;

    let service = TowerToHyperService::new(router(state.clone()));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(state.limits.header_timeout);
    tokio::pin!(stop);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut stop => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                // Out of descriptors, or a connection reset before it was taken: go on shortly.
                crate::note!("stagehand serve: accept failed: {error}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let connection = http.serve_connection(TokioIo::new(stream), service.clone());
        let watched = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that goes away or is too slow ends its own connection; nothing to report.
            let _ = watched.await;
        });
    }
    let _ = state.shutdown.send(true);
    // Every request is bounded by the request timeout; what is left after it (a live stream whose
    // client stopped reading, a head that never came) is not waited on for ever.
    let grace = state.limits.request_timeout.max(state.limits.header_timeout) + std::time::Duration::from_secs(1);
    if tokio::time::timeout(grace, graceful.shutdown()).await.is_err() {
        crate::note!("stagehand serve: closed connections still open {} s after shutdown began", grace.as_secs());
    }
}

/// Resolves on SIGTERM or ctrl-c, after telling live streams to end.
async fn stopped(state: Shared) {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = term => {}
    }
    crate::note!("stagehand serve: shutting down; finishing requests in flight");
    let _ = state.shutdown.send(true);
}

/// Opens and stores every document in `folder` (not its subfolders, nor a file the documents
/// crate does not count as a document of a folder: a README, a world, `dialogue.toml`; S38);
/// one that does not open is named on standard error and skipped.
async fn load_documents(state: &Shared, folder: &std::path::Path) -> Result<(), ServeError> {
    let shown = folder.display().to_string();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| ServeError::Documents(shown.clone(), e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        // A README, a world or a configuration beside the stories is not a broken story.
        .filter(|path| path.is_file() && stagehand_documents::kind::in_folder(path))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(u64::MAX);
        if size > state.limits.document_bytes as u64 {
            crate::note!("stagehand serve: skipped {}: larger than the document limit", path.display());
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) => {
                crate::note!("stagehand serve: skipped {}: {error}", path.display());
                continue;
            }
        };
        let opened = match crate::host::open(&bytes, Some(&name), None) {
            Ok(opened) => opened,
            Err(refused) => {
                crate::note!("stagehand serve: skipped {}: {}", path.display(), refused.detail);
                continue;
            }
        };
        let now = i64::try_from(now_ms()).unwrap_or(i64::MAX);
        state.store.put_document(&opened.fingerprint, &opened.kind, &name, &bytes, now).await?;
        state.keep(&opened.fingerprint, Arc::new(opened.document), bytes.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Serve {
        #[command(flatten)]
        config: Config,
    }

    fn config(flags: &[&str]) -> Config {
        Serve::try_parse_from(std::iter::once("serve").chain(flags.iter().copied())).expect("the flags parse").config
    }

    #[test]
    fn the_binding_flags_are_read_into_the_lineup_by_the_ports_crate() {
        let config = config(&[
            "--player",
            "writer=exec:./writer.sh",
            "--player",
            "reviewer=openai:gpt-4o-mini@https://api.openai.com/v1",
            "--captain",
            "exec:./captain.sh",
        ]);
        let lineup = config.lineup().expect("a lineup");
        let players: Vec<&str> = lineup.players.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(players, ["writer", "reviewer"]);
        assert!(lineup.captain.is_some() && lineup.judge.is_none());
        assert_eq!(lineup, LineupSpec::parse(&config.players, config.captain.as_deref(), None).unwrap());
        // No flags, no lineup: the server serves documents that need none.
        assert_eq!(super::Config::default().lineup().unwrap(), LineupSpec::default());
    }

    #[test]
    fn a_bad_binding_is_refused_before_the_server_listens() {
        for flags in [
            &["--player", "writer"][..],
            &["--player", "writer=ftp:x"],
            &["--player", "w=exec:a", "--player", "W=exec:b"],
            &["--judge", "openai:model-without-url"],
        ] {
            let error = config(flags).lineup().expect_err("refused");
            assert!(matches!(error, ServeError::Lineup(_)), "{flags:?}: {error}");
            assert!(error.to_string().starts_with("a port binding is not valid: "), "{error}");
        }
    }

    #[test]
    fn the_trace_poll_flag_sets_the_limit() {
        assert_eq!(config(&[]).limits().trace_poll, std::time::Duration::from_millis(250));
        assert_eq!(config(&["--trace-poll-ms", "5000"]).limits().trace_poll, std::time::Duration::from_secs(5));
    }
}
