//! Serving: open the store, load the documents folder, listen, and shut down gracefully on
//! SIGTERM or ctrl-c (requests in flight finish; live streams end).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use crate::app::{now_ms, router, AppState, Limits, Shared};
use crate::store::{Store, StoreError};

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
    /// A folder to preview: its documents are loaded, opened again whenever their files change,
    /// and listed with their diagnostics by GET /v1/watch (the page's writer's preview).
    #[arg(long, value_name = "DIR")]
    pub watch: Option<PathBuf>,
    /// The limits.
    #[arg(skip)]
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            listen: DEFAULT_LISTEN.to_owned(),
            database: DEFAULT_DATABASE.to_owned(),
            documents: None,
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
    let store = Store::open(&config.database).await?;
    let state = AppState::new(store, config.limits);
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
    let app = router(state.clone());
    let result = axum::serve(listener, app).with_graceful_shutdown(stopped(state.clone())).await;
    state.store.close().await;
    result.map_err(|e| ServeError::Listen(address.to_string(), e))
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

/// Opens and stores every document in `folder` (not its subfolders); one that does not open is
/// named on standard error and skipped.
async fn load_documents(state: &Shared, folder: &std::path::Path) -> Result<(), ServeError> {
    let shown = folder.display().to_string();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| ServeError::Documents(shown.clone(), e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_file())
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
        state.keep(&opened.fingerprint, Arc::new(opened.document));
    }
    Ok(())
}
