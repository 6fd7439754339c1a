//! Group commit for SQLite (decisions S16, S26): SQLite has one writer and makes every commit
//! durable with its own sync of the log, so advances waiting at the same moment are committed
//! together, one transaction and one sync for all of them. Each advance runs inside its own
//! savepoint, so one that finds its version moved is undone alone; each caller hears its own
//! outcome only after the transaction has committed.
//!
//! The writer is a thread of its own holding one `rusqlite` connection with its statements
//! prepared once (S26): a transaction of many advances runs without leaving the thread, where a
//! pooled async connection would cross threads for every statement. The SQL is the store's own
//! (`super::sql`). Checkpoints (copying the log back into the
//! database file) run on a thread of their own, not inside a commit.

use std::sync::mpsc;
use std::time::Duration;

use rusqlite::{params, Connection, ErrorCode, TransactionBehavior};
use tokio::sync::oneshot;

use super::{sql, Advance, Commit, StoreError, RETRIES};

/// The most advances one transaction carries.
const MOST: usize = 256;

/// An advance, owned, to cross to the writer thread.
struct Owned {
    session_id: String,
    from_version: i64,
    snapshot: String,
    key: String,
    request_hash: String,
    status: u16,
    body: String,
    trace: Vec<(i64, String)>,
    transcript: Vec<String>,
    now: i64,
}

impl Owned {
    fn of(advance: &Advance<'_>) -> Owned {
        Owned {
            session_id: advance.session_id.to_owned(),
            from_version: advance.from_version,
            snapshot: advance.snapshot.to_owned(),
            key: advance.key.to_owned(),
            request_hash: advance.request_hash.to_owned(),
            status: advance.status,
            body: advance.body.to_owned(),
            trace: advance.trace.to_vec(),
            transcript: advance.transcript.to_vec(),
            now: advance.now,
        }
    }
}

struct Job {
    advance: Owned,
    reply: oneshot::Sender<Result<Commit, String>>,
}

/// The door to the writer thread.
#[derive(Debug, Clone)]
pub(crate) struct Batcher {
    jobs: mpsc::Sender<Job>,
    /// Dropped with the last batcher: the checkpointer ends.
    _stop: mpsc::Sender<()>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job").field("session", &self.advance.session_id).finish()
    }
}

impl Batcher {
    /// Opens the writer connection on the SQLite file `path` (its schema already made) and starts
    /// the writer thread.
    pub(crate) fn start(path: &str, synchronous: &str) -> Result<Batcher, StoreError> {
        let connection = Connection::open(path).map_err(batch_error)?;
        connection.busy_timeout(Duration::from_secs(5)).map_err(batch_error)?;
        connection
            .execute_batch(&format!(
                "PRAGMA journal_mode = WAL; PRAGMA synchronous = {synchronous}; PRAGMA wal_autocheckpoint = 0;"
            ))
            .map_err(batch_error)?;
        connection.set_prepared_statement_cache_capacity(16);
        let checkpointer = Connection::open(path).map_err(batch_error)?;
        checkpointer.busy_timeout(Duration::from_secs(5)).map_err(batch_error)?;
        let (jobs, queue) = mpsc::channel();
        let (stop, stopped) = mpsc::channel();
        std::thread::Builder::new()
            .name("stagehand-sqlite-writer".to_owned())
            .spawn(move || write(connection, &queue))
            .map_err(|e| StoreError::Batch(format!("cannot start the writer: {e}")))?;
        std::thread::Builder::new()
            .name("stagehand-sqlite-checkpoint".to_owned())
            .spawn(move || checkpoint(&checkpointer, &stopped))
            .map_err(|e| StoreError::Batch(format!("cannot start the checkpointer: {e}")))?;
        Ok(Batcher { jobs, _stop: stop })
    }

    /// Commits `advance` with whatever else is waiting; its own outcome once committed.
    pub(crate) async fn commit(&self, advance: &Advance<'_>) -> Result<Commit, StoreError> {
        let (reply, outcome) = oneshot::channel();
        let job = Job { advance: Owned::of(advance), reply };
        self.jobs.send(job).map_err(|_| StoreError::Batch("the writer has stopped".to_owned()))?;
        outcome.await.map_err(|_| StoreError::Batch("the writer has stopped".to_owned()))?.map_err(StoreError::Batch)
    }
}

fn batch_error(error: rusqlite::Error) -> StoreError {
    StoreError::Batch(error.to_string())
}

/// The writer thread: takes what waits (up to [`MOST`]), commits it as one, answers each. Ends
/// when every [`Batcher`] is gone.
fn write(mut connection: Connection, queue: &mpsc::Receiver<Job>) {
    while let Ok(first) = queue.recv() {
        let mut batch = vec![first];
        while batch.len() < MOST {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        match commit_all(&mut connection, &batch) {
            Ok(commits) => {
                for (job, commit) in batch.into_iter().zip(commits) {
                    let _ = job.reply.send(Ok(commit));
                }
            }
            Err(error) => {
                let error = format!("the group commit failed: {error}");
                for job in batch {
                    let _ = job.reply.send(Err(error.clone()));
                }
            }
        }
    }
}

/// How often the log is copied back into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(250);

/// The checkpointer thread: copies the log back into the database file every
/// [`CHECKPOINT_EVERY`] (a passive checkpoint, which never waits for the writer), so that no
/// commit pays for it (every connection's own automatic checkpoint is off). Ends when every
/// [`Batcher`] is gone; a failed checkpoint is tried again next time.
fn checkpoint(connection: &Connection, stopped: &mpsc::Receiver<()>) {
    while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(CHECKPOINT_EVERY) {
        let _ = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    }
}

/// Commits the batch in one transaction, retrying a busy file (another process writing) a
/// bounded number of times; every advance's outcome.
fn commit_all(connection: &mut Connection, batch: &[Job]) -> rusqlite::Result<Vec<Commit>> {
    let mut tries = 0;
    loop {
        match try_commit_all(connection, batch) {
            Err(error) if is_busy(&error) && tries < RETRIES => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(1 << tries.min(6)));
            }
            other => return other,
        }
    }
}

fn try_commit_all(connection: &mut Connection, batch: &[Job]) -> rusqlite::Result<Vec<Commit>> {
    let mut tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut commits = Vec::with_capacity(batch.len());
    for job in batch {
        let savepoint = tx.savepoint()?;
        let commit = advance(&savepoint, &job.advance)?;
        match commit {
            Commit::Committed => savepoint.commit()?,
            // Dropped, a savepoint rolls back what it wrote.
            Commit::Moved | Commit::Gone => drop(savepoint),
        }
        commits.push(commit);
    }
    tx.commit()?;
    Ok(commits)
}

/// One advance: the compare-and-swap, the receipt, the lines. On [`Commit::Moved`] or [`Commit::Gone`] the caller rolls back.
fn advance(connection: &Connection, advance: &Owned) -> rusqlite::Result<Commit> {
    let moved = connection.prepare_cached(sql::ADVANCE)?.execute(params![
        advance.snapshot,
        advance.now,
        advance.session_id,
        advance.from_version
    ])?;
    if moved == 0 {
        let exists = connection.prepare_cached(sql::VERSION)?.exists(params![advance.session_id])?;
        return Ok(if exists { Commit::Moved } else { Commit::Gone });
    }
    let recorded = connection.prepare_cached(sql::RECORD)?.execute(params![
        advance.session_id,
        advance.key,
        advance.request_hash,
        i64::from(advance.status),
        advance.body,
        advance.from_version + 1,
        advance.now
    ]);
    match recorded {
        Err(error) if is_unique_violation(&error) => return Ok(Commit::Moved),
        other => other?,
    };
    let mut trace = connection.prepare_cached(sql::TRACE)?;
    for (seq, line) in &advance.trace {
        trace.execute(params![advance.session_id, seq, line])?;
    }
    let mut transcript = connection.prepare_cached(sql::TRANSCRIPT)?;
    for line in &advance.transcript {
        transcript.execute(params![advance.session_id, line])?;
    }
    Ok(Commit::Committed)
}

fn is_unique_violation(error: &rusqlite::Error) -> bool {
    matches!(error, rusqlite::Error::SqliteFailure(e, _) if e.code == ErrorCode::ConstraintViolation
        && matches!(e.extended_code, 1555 | 2067))
}

fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(error.sqlite_error_code(), Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked))
}
