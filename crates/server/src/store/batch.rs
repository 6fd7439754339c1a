//! Group commit for SQLite (decision S16): SQLite has one writer and makes every commit durable
//! with its own sync of the log, so advances waiting at the same moment are committed together,
//! one transaction and one sync for all of them. Each advance runs inside its own savepoint, so one
//! that finds its version moved is undone alone; each caller hears its own outcome only after the
//! transaction has committed.

use sqlx::{Acquire, AnyPool};
use tokio::sync::{mpsc, oneshot};

use super::{advance_in, retrying, Advance, Commit, StoreError};

/// The most advances one transaction carries.
const MOST: usize = 128;

/// An advance, owned, to cross to the writer task.
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

    fn advance(&self) -> Advance<'_> {
        Advance {
            session_id: &self.session_id,
            from_version: self.from_version,
            snapshot: &self.snapshot,
            key: &self.key,
            request_hash: &self.request_hash,
            status: self.status,
            body: &self.body,
            trace: &self.trace,
            transcript: &self.transcript,
            now: self.now,
        }
    }
}

struct Job {
    advance: Owned,
    reply: oneshot::Sender<Result<Commit, String>>,
}

/// The door to the writer task.
#[derive(Debug, Clone)]
pub(crate) struct Batcher {
    jobs: mpsc::Sender<Job>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Job").field("session", &self.advance.session_id).finish()
    }
}

impl Batcher {
    /// Starts the writer task over the one writer connection's pool.
    pub(crate) fn start(pool: AnyPool) -> Batcher {
        let (jobs, queue) = mpsc::channel(4 * MOST);
        tokio::spawn(write(pool, queue));
        Batcher { jobs }
    }

    /// Commits `advance` with whatever else is waiting; its own outcome once committed.
    pub(crate) async fn commit(&self, advance: &Advance<'_>) -> Result<Commit, StoreError> {
        let (reply, outcome) = oneshot::channel();
        let job = Job { advance: Owned::of(advance), reply };
        self.jobs.send(job).await.map_err(|_| StoreError::Batch("the writer has stopped".to_owned()))?;
        outcome.await.map_err(|_| StoreError::Batch("the writer has stopped".to_owned()))?.map_err(StoreError::Batch)
    }
}

/// The writer task: takes what waits (up to [`MOST`]), commits it as one, answers each.
async fn write(pool: AnyPool, mut queue: mpsc::Receiver<Job>) {
    while let Some(first) = queue.recv().await {
        let mut batch = vec![first];
        while batch.len() < MOST {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        match commit_all(&pool, &batch).await {
            Ok(commits) => {
                for (job, commit) in batch.into_iter().zip(commits) {
                    let _ = job.reply.send(Ok(commit));
                }
            }
            Err(error) => {
                let error = error.to_string();
                for job in batch {
                    let _ = job.reply.send(Err(error.clone()));
                }
            }
        }
    }
}

async fn commit_all(pool: &AnyPool, batch: &[Job]) -> Result<Vec<Commit>, StoreError> {
    retrying(|| async {
        let mut tx = pool.begin().await?;
        let mut commits = Vec::with_capacity(batch.len());
        for job in batch {
            let mut savepoint = (&mut tx).begin().await?;
            let commit = advance_in(&mut savepoint, &job.advance.advance()).await?;
            match commit {
                Commit::Committed => savepoint.commit().await?,
                Commit::Moved | Commit::Gone => savepoint.rollback().await?,
            }
            commits.push(commit);
        }
        tx.commit().await?;
        Ok(commits)
    })
    .await
}
