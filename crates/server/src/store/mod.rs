//! The store: documents by fingerprint, sessions with a version, receipts under a unique
//! (session, idempotency key), trace lines under a unique (session, sequence) and the transcript.
//!
//! One code path for SQLite and PostgreSQL through `sqlx`'s `Any` driver, plain queries with
//! bound parameters only (decision S1), except for the advance itself: SQLite's group commit
//! runs on a `rusqlite` writer thread (S26) and PostgreSQL runs it as one statement (S28). An
//! apply is one transaction that moves the session's
//! version by compare-and-swap and writes the new snapshot, the receipt and the trace lines
//! (decision S2): [`Store::commit`] says [`Commit::Moved`] when the version moved under it, and the
//! caller starts again on the new state.

mod batch;
mod migrate;

use std::time::Duration;

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{AnyPool, Connection, Executor, Row};

pub use migrate::SCHEMA_VERSION;

/// Which database a store speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// A SQLite file, in WAL mode: one writer connection, a pool of readers.
    Sqlite,
    /// A PostgreSQL database (or a compatible one), shared by any number of servers.
    Postgres,
}

/// What went wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database URL names no database this build serves.
    #[error("the database URL must start with sqlite: or postgres:// (it starts with {0:?})")]
    Url(String),
    /// The database could not be opened or reached when the store opened: where (a SQLite file,
    /// a PostgreSQL host and port; never the credentials), and why.
    #[error("cannot open the database at {place}: {source}")]
    Open {
        /// The file, or `HOST:PORT`.
        place: String,
        /// Why.
        source: sqlx::Error,
    },
    /// The database refused or failed.
    #[error("the database failed: {0}")]
    Database(#[from] sqlx::Error),
    /// A group commit failed (every advance in it was rolled back), or its writer has stopped.
    #[error("the group commit failed: {0}")]
    Batch(String),
    /// The schema is not one this build can use.
    #[error("the database schema does not fit: {0}")]
    Schema(String),
}

/// A session's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    /// The session's id.
    pub id: String,
    /// The SHA-256 of its token, in hex.
    pub token_hash: String,
    /// Its document's fingerprint.
    pub fingerprint: String,
    /// How many times it has advanced (1 when made).
    pub version: i64,
    /// The session's snapshot, as JSON text.
    pub snapshot: String,
    /// The world it was made with, as JSON text (`None`: no world); never changes (S18).
    pub world: Option<String>,
}

/// A response recorded under an idempotency key: exactly what was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredReceipt {
    /// The SHA-256 of what was asked, so the same key with another request is told apart.
    pub request_hash: String,
    /// The HTTP status sent.
    pub status: u16,
    /// The body sent, byte for byte.
    pub body: String,
}

/// What one advance of a session writes, all in one transaction.
#[derive(Debug, Clone, Copy)]
pub struct Advance<'a> {
    /// The session.
    pub session_id: &'a str,
    /// The version the new state was computed from.
    pub from_version: i64,
    /// The new snapshot, as JSON text.
    pub snapshot: &'a str,
    /// The idempotency key and the response to record under it.
    pub key: &'a str,
    /// The request's hash.
    pub request_hash: &'a str,
    /// The response's status.
    pub status: u16,
    /// The response's body.
    pub body: &'a str,
    /// The trace lines the advance made, `(sequence, JSON line)`.
    pub trace: &'a [(i64, String)],
    /// The transcript lines it made (numbered on commit after those already stored).
    pub transcript: &'a [String],
    /// The host's time, Unix milliseconds.
    pub now: i64,
}

/// How a commit went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Commit {
    /// Committed: the session is at `from_version + 1`.
    Committed,
    /// The session's version moved (or the key was recorded) under us: nothing was written.
    Moved,
    /// The session is gone.
    Gone,
}

/// How many times a transaction that the database asked to retry is retried.
const RETRIES: usize = 8;

/// SQLite's `synchronous` setting: FULL, a commit is on the disk before it is acknowledged (S2,
/// S26).
const SYNCHRONOUS: &str = "FULL";

/// The store over one database.
#[derive(Debug, Clone)]
pub struct Store {
    backend: Backend,
    writer: AnyPool,
    reader: AnyPool,
    /// SQLite's group commit (decision S16); PostgreSQL commits each advance on its own.
    batcher: Option<batch::Batcher>,
}

impl Store {
    /// Opens the database at `url` (`sqlite:FILE`, created on first use, or `postgres://…`) and
    /// brings its schema up to date.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        if let Some(path) = url.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            let path = path.split('?').next().unwrap_or(path);
            if path.is_empty() || path.starts_with(":memory:") {
                return Err(StoreError::Url(url.chars().take(12).collect()));
            }
            let url = with_create_mode(url);
            let opened = |source| StoreError::Open { place: path.to_owned(), source };
            let writer = sqlite_pool(1).connect(&url).await.map_err(opened)?;
            // WAL lets readers go on while the one writer writes; it is a property of the file.
            writer.execute("PRAGMA journal_mode = WAL").await?;
            let reader = sqlite_pool(4).connect(&url).await?;
            migrate::run(&writer, Backend::Sqlite).await?;
            let batcher = Some(batch::Batcher::start(path, SYNCHRONOUS)?);
            Ok(Store { backend: Backend::Sqlite, writer, reader, batcher })
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            // One connection first: a pool retries a refused connection until its 30 s timeout
            // and then names no cause; this says at once where and why.
            let opened = |source| StoreError::Open { place: host_and_port(url), source };
            sqlx::AnyConnection::connect(url).await.map_err(opened)?.close().await?;
            let pool = AnyPoolOptions::new().max_connections(16).connect(url).await?;
            migrate::run(&pool, Backend::Postgres).await?;
            Ok(Store { backend: Backend::Postgres, writer: pool.clone(), reader: pool, batcher: None })
        } else {
            Err(StoreError::Url(url.chars().take(12).collect()))
        }
    }

    /// Which database this is.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Closes the pools, waiting for connections in use.
    pub async fn close(&self) {
        self.writer.close().await;
        self.reader.close().await;
    }

    /// Stores a document under its fingerprint; storing it again changes nothing.
    pub async fn put_document(
        &self,
        fingerprint: &str,
        kind: &str,
        name: &str,
        body: &[u8],
        now: i64,
    ) -> Result<(), StoreError> {
        retrying(|| async {
            sqlx::query(
                "INSERT INTO documents (fingerprint, kind, name, body, created_at) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (fingerprint) DO NOTHING",
            )
            .bind(fingerprint)
            .bind(kind)
            .bind(name)
            .bind(body.to_vec())
            .bind(now)
            .execute(&self.writer)
            .await
            .map(drop)
        })
        .await
    }

    /// A document's kind, name and bytes.
    pub async fn document(&self, fingerprint: &str) -> Result<Option<(String, String, Vec<u8>)>, StoreError> {
        let row = sqlx::query("SELECT kind, name, body FROM documents WHERE fingerprint = $1")
            .bind(fingerprint)
            .fetch_optional(&self.reader)
            .await?;
        row.map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))).transpose()
    }

    /// Every document: fingerprint, kind and name, oldest first.
    pub async fn documents(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        let rows = sqlx::query("SELECT fingerprint, kind, name FROM documents ORDER BY created_at, fingerprint")
            .fetch_all(&self.reader)
            .await?;
        rows.iter().map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))).collect()
    }

    /// Makes a session at version 1 with its first trace and transcript lines.
    pub async fn create_session(
        &self,
        row: &SessionRow,
        trace: &[(i64, String)],
        transcript: &[String],
        now: i64,
    ) -> Result<(), StoreError> {
        retrying(|| async {
            let mut tx = self.writer.begin().await?;
            sqlx::query(
                "INSERT INTO sessions (id, token_hash, fingerprint, version, snapshot, created_at, updated_at, world) \
                 VALUES ($1, $2, $3, $4, $5, $6, $6, $7)",
            )
            .bind(&row.id)
            .bind(&row.token_hash)
            .bind(&row.fingerprint)
            .bind(row.version)
            .bind(&row.snapshot)
            .bind(now)
            .bind(&row.world)
            .execute(&mut *tx)
            .await?;
            insert_lines(&mut tx, &row.id, trace, transcript).await?;
            tx.commit().await
        })
        .await
    }

    /// A session's row, or `None` when there is no such session.
    pub async fn session(&self, id: &str) -> Result<Option<SessionRow>, StoreError> {
        let row =
            sqlx::query("SELECT id, token_hash, fingerprint, version, snapshot, world FROM sessions WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.reader)
                .await?;
        row.map(|row| session_row(&row)).transpose()
    }

    /// The response recorded under `key` for the session `id`.
    pub async fn receipt(&self, id: &str, key: &str) -> Result<Option<StoredReceipt>, StoreError> {
        let row = sqlx::query(
            "SELECT request_hash, status, body FROM receipts WHERE session_id = $1 AND idempotency_key = $2",
        )
        .bind(id)
        .bind(key)
        .fetch_optional(&self.reader)
        .await?;
        row.map(|row| {
            let status: i64 = row.try_get(1)?;
            Ok(StoredReceipt {
                request_hash: row.try_get(0)?,
                status: u16::try_from(status).unwrap_or(500),
                body: row.try_get(2)?,
            })
        })
        .transpose()
    }

    /// Advances a session by compare-and-swap on its version, writing the snapshot, the receipt,
    /// the trace lines and the transcript in one transaction (decision S2). Acknowledge the
    /// request only after this returns [`Commit::Committed`].
    pub async fn commit(&self, advance: &Advance<'_>) -> Result<Commit, StoreError> {
        if let Some(batcher) = &self.batcher {
            return batcher.commit(advance).await;
        }
        // PostgreSQL: the whole advance is one statement, one round trip (S28).
        let trace = serde_json::to_string(
            &advance.trace.iter().map(|(seq, line)| serde_json::json!({"seq": seq, "line": line})).collect::<Vec<_>>(),
        )
        .map_err(|e| StoreError::Batch(e.to_string()))?;
        let transcript = serde_json::to_string(advance.transcript).map_err(|e| StoreError::Batch(e.to_string()))?;
        retrying(|| async {
            let counted = sqlx::query(sql::ADVANCE_IN_ONE)
                .bind(advance.snapshot)
                .bind(advance.now)
                .bind(advance.session_id)
                .bind(advance.from_version)
                .bind(advance.key)
                .bind(advance.request_hash)
                .bind(i64::from(advance.status))
                .bind(advance.body)
                .bind(&trace)
                .bind(&transcript)
                .fetch_one(&self.writer)
                .await;
            let row = match counted {
                // The key is already recorded: the statement wrote nothing.
                Err(error) if is_unique_violation(&error) => return Ok(Commit::Moved),
                other => other?,
            };
            let (moved, exists): (i64, i64) = (row.try_get(0)?, row.try_get(1)?);
            Ok(match (moved, exists) {
                (0, 0) => Commit::Gone,
                (0, _) => Commit::Moved,
                _ => Commit::Committed,
            })
        })
        .await
    }

    /// The trace lines after sequence `after`, in order, at most `limit`.
    pub async fn trace(&self, id: &str, after: i64, limit: i64) -> Result<Vec<(i64, String)>, StoreError> {
        self.lines(
            "SELECT seq, line FROM trace WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            id,
            after,
            limit,
        )
        .await
    }

    /// The transcript lines after number `after`, in order, at most `limit`.
    pub async fn transcript(&self, id: &str, after: i64, limit: i64) -> Result<Vec<(i64, String)>, StoreError> {
        self.lines(
            "SELECT n, line FROM transcript WHERE session_id = $1 AND n > $2 ORDER BY n LIMIT $3",
            id,
            after,
            limit,
        )
        .await
    }

    async fn lines(
        &self,
        sql: &'static str,
        id: &str,
        after: i64,
        limit: i64,
    ) -> Result<Vec<(i64, String)>, StoreError> {
        let rows = sqlx::query(sql).bind(id).bind(after).bind(limit).fetch_all(&self.reader).await?;
        rows.iter().map(|row| Ok((row.try_get(0)?, row.try_get(1)?))).collect()
    }

    /// Deletes a session with its receipts, trace and transcript; whether it existed.
    pub async fn delete_session(&self, id: &str) -> Result<bool, StoreError> {
        retrying(|| async {
            let mut tx = self.writer.begin().await?;
            let deleted = sqlx::query("DELETE FROM sessions WHERE id = $1").bind(id).execute(&mut *tx).await?;
            for table in ["DELETE FROM receipts WHERE session_id = $1", "DELETE FROM trace WHERE session_id = $1"] {
                sqlx::query(table).bind(id).execute(&mut *tx).await?;
            }
            sqlx::query("DELETE FROM transcript WHERE session_id = $1").bind(id).execute(&mut *tx).await?;
            tx.commit().await?;
            Ok(deleted.rows_affected() > 0)
        })
        .await
    }

    /// How many sessions there are.
    pub async fn session_count(&self) -> Result<i64, StoreError> {
        Ok(sqlx::query("SELECT COUNT(*) FROM sessions").fetch_one(&self.reader).await?.try_get(0)?)
    }

    /// Whether the database answers.
    pub async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").fetch_one(&self.reader).await?;
        Ok(())
    }
}

/// The statements of an advance: SQLite's writer runs them one by one (S26), PostgreSQL runs
/// them as one (S28).
pub(crate) mod sql {
    /// The compare-and-swap: `$1` snapshot, `$2` now, `$3` id, `$4` the version read.
    pub(crate) const ADVANCE: &str =
        "UPDATE sessions SET version = version + 1, snapshot = $1, updated_at = $2 WHERE id = $3 AND version = $4";
    /// Whether the session is still there.
    pub(crate) const VERSION: &str = "SELECT version FROM sessions WHERE id = $1";
    /// The receipt under its key.
    pub(crate) const RECORD: &str =
        "INSERT INTO receipts (session_id, idempotency_key, request_hash, status, body, version, created_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7)";
    /// A trace line.
    pub(crate) const TRACE: &str = "INSERT INTO trace (session_id, seq, line) VALUES ($1, $2, $3)";
    /// PostgreSQL's whole advance in one statement: the compare-and-swap (`$1` snapshot, `$2`
    /// now, `$3` id, `$4` the version read), the receipt (`$5` key, `$6` request hash, `$7`
    /// status, `$8` body), the trace lines (`$9`, a JSON array of `{seq, line}`) and the
    /// transcript lines (`$10`, a JSON array of lines, numbered after the session's last), each
    /// written only if the swap took. A key already recorded fails the statement on the
    /// receipts' unique key, so nothing is written. Answers how many rows were swapped (0 or 1)
    /// and whether the session exists.
    pub(crate) const ADVANCE_IN_ONE: &str = "WITH moved AS (\
           UPDATE sessions SET version = version + 1, snapshot = $1, updated_at = $2 \
           WHERE id = $3 AND version = $4 RETURNING id), \
         recorded AS (\
           INSERT INTO receipts (session_id, idempotency_key, request_hash, status, body, version, created_at) \
           SELECT id, $5, $6, $7, $8, $4 + 1, $2 FROM moved RETURNING session_id), \
         traced AS (\
           INSERT INTO trace (session_id, seq, line) \
           SELECT r.session_id, t.seq, t.line FROM recorded r, json_to_recordset($9::json) AS t(seq BIGINT, line TEXT)), \
         said AS (\
           INSERT INTO transcript (session_id, n, line) \
           SELECT r.session_id, (SELECT COALESCE(MAX(n), 0) FROM transcript WHERE session_id = $3) + l.ord, l.line \
           FROM recorded r, json_array_elements_text($10::json) WITH ORDINALITY AS l(line, ord)) \
         SELECT (SELECT COUNT(*) FROM moved), (SELECT COUNT(*) FROM sessions WHERE id = $3)";
    /// A transcript line (`$1` session, `$2` line), numbered after the session's last one: the
    /// number is read and written in one statement.
    pub(crate) const TRANSCRIPT: &str = "INSERT INTO transcript (session_id, n, line) \
         SELECT $1, COALESCE(MAX(n), 0) + 1, $2 FROM transcript WHERE session_id = $1";
}

fn sqlite_pool(connections: u32) -> AnyPoolOptions {
    AnyPoolOptions::new().max_connections(connections).after_connect(|connection, _| {
        Box::pin(async move {
            // FULL: a commit is on disk before it is acknowledged, in WAL mode too (S2).
            connection.execute("PRAGMA synchronous = FULL").await?;
            connection.execute("PRAGMA busy_timeout = 5000").await?;
            // The group commit's checkpointer copies the log back (S26), not a commit.
            connection.execute("PRAGMA wal_autocheckpoint = 0").await?;
            Ok(())
        })
    })
}

/// `sqlite:FILE` with `mode=rwc`, so the file is created on first use.
fn with_create_mode(url: &str) -> String {
    if url.contains("mode=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&mode=rwc")
    } else {
        format!("{url}?mode=rwc")
    }
}

fn session_row(row: &AnyRow) -> Result<SessionRow, StoreError> {
    Ok(SessionRow {
        id: row.try_get(0)?,
        token_hash: row.try_get(1)?,
        fingerprint: row.try_get(2)?,
        version: row.try_get(3)?,
        snapshot: row.try_get(4)?,
        world: row.try_get(5)?,
    })
}

async fn insert_lines(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    id: &str,
    trace: &[(i64, String)],
    transcript: &[String],
) -> Result<(), sqlx::Error> {
    for (seq, line) in trace {
        sqlx::query(sql::TRACE).bind(id).bind(*seq).bind(line).execute(&mut **tx).await?;
    }
    for line in transcript {
        sqlx::query(sql::TRANSCRIPT).bind(id).bind(line).execute(&mut **tx).await?;
    }
    Ok(())
}

/// Runs a transaction again when the database says to (a serialization failure or a deadlock on
/// PostgreSQL, a busy file on SQLite), a bounded number of times.
pub(crate) async fn retrying<T, F, Fut>(mut attempt: F) -> Result<T, StoreError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, sqlx::Error>>,
{
    let mut tries = 0;
    loop {
        match attempt().await {
            Err(error) if is_retryable(&error) && tries < RETRIES => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(1 << tries.min(6))).await;
            }
            other => return other.map_err(StoreError::from),
        }
    }
}

/// A serialization failure or deadlock (PostgreSQL, CockroachDB), or a busy or locked file
/// (SQLite).
pub(crate) fn is_retryable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Database(db) => {
            matches!(db.code().as_deref(), Some("40001" | "40P01" | "5" | "6" | "517" | "261" | "262"))
        }
        _ => false,
    }
}

pub(crate) fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

#[cfg(test)]
mod tests;

/// A PostgreSQL URL's `HOST:PORT` (or what stands there), without its user or password.
fn host_and_port(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let place = rest.split(['/', '?']).next().unwrap_or("");
    let place = place.rsplit_once('@').map_or(place, |(_, place)| place);
    if place.is_empty() {
        "localhost".to_owned()
    } else {
        place.to_owned()
    }
}
