//! Live sessions: kept in memory between requests, keyed by (session id, version), so that an
//! apply on the version this process last committed runs on the session it already holds instead
//! of restoring it from its JSON (decision S25).
//!
//! Sessions (`Box<dyn AnySession>`) need not be `Send` (a ChatMapper world's Lua state is not),
//! so each lives on one thread for good: a few session threads, each owning a bounded map of the
//! sessions whose id hashes to it, run every request's session work. A request sends its job and
//! awaits the answer; nothing session-shaped crosses a thread.
//!
//! The database stays the only source of truth. A session computed on is kept *tentative* at its
//! new version; only when its commit is heard to have committed is it *confirmed*
//! ([`Live::confirm`]), and only a confirmed session is ever computed on again. A version that
//! moved (another process, a lost commit) is found by the row's compare-and-swap, and the request
//! starts again from the row, which the session threads restore.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::panic::AssertUnwindSafe;
use std::sync::{mpsc, Arc};

use serde_json::Value;
use stagehand_session::host::AnySession;
use tokio::sync::oneshot;

use stagehand_protocol::Receipt;

use crate::exactly::{respond, transcript_lines, Request};
use crate::host::Document;
use crate::problem::{Kind, Problem};
use crate::secret::token_matches;
use crate::store::SessionRow;

/// How many sessions every session thread keeps at most (the least recently used go first).
pub const KEPT_PER_THREAD: usize = 4096;

/// Whether the stored snapshot leaves the session's receipts out (S27): off, because a save
/// (`GET …/snapshot`) must carry them for a session loaded from it to answer its keys (W16), and
/// the receipts table keeps answers, not the actions they were for. On, an apply no longer writes
/// every receipt back; it needs the session layer to write a snapshot's receipts apart (or the
/// store to keep what they were for) first.
const STRIP_RECEIPTS: bool = false;

/// How many receipts a kept session may hold in memory before it is put back from its own
/// (receipt-less) snapshot: receipts live in the receipts table (S27), and a session's snapshot
/// is taken on every apply, so what it holds in memory must stay small.
pub const RECEIPTS_IN_MEMORY: usize = 8;

type Boxed<'a> = Box<dyn AnySession + 'a>;

self_cell::self_cell!(
    /// A session with the document it borrows.
    struct Held {
        owner: Arc<Document>,
        #[not_covariant]
        dependent: Boxed,
    }
);

/// A session as a session thread keeps it.
struct Entry {
    /// The version it is at.
    version: i64,
    /// Whether the commit that made `version` was heard to commit.
    confirmed: bool,
    /// The SHA-256 of its token, in hex.
    token_hash: String,
    /// The world it was made with, as JSON text (S18: it never changes).
    world: Option<String>,
    /// When it was last used, in jobs.
    used: u64,
    held: Held,
}

/// Where a job's session comes from.
#[derive(Debug)]
pub enum Source {
    /// The session this process holds at its last committed version, if it holds one and the
    /// token is its own.
    Kept {
        /// The bearer token the request came with.
        token: String,
    },
    /// The session's row (already authorised), with its document.
    Row {
        /// The row.
        row: SessionRow,
        /// Its document, opened.
        document: Arc<Document>,
    },
}

/// A request computed on one version of a session, ready to commit.
#[derive(Debug)]
pub struct Computed {
    /// The version it was computed on.
    pub from_version: i64,
    /// The new snapshot (without receipts, S27), as JSON text.
    pub snapshot: String,
    /// The response's status.
    pub status: u16,
    /// The response's body.
    pub body: String,
    /// The disposition, for the metrics.
    pub disposition: &'static str,
    /// The trace lines, `(sequence, JSON line)`.
    pub trace: Vec<(i64, String)>,
    /// The transcript lines.
    pub transcript: Vec<String>,
}

/// What a session thread answers.
#[derive(Debug)]
pub enum Answer {
    /// Computed; commit it.
    Computed(Computed),
    /// No confirmed session kept under that id for that token: start from the row.
    Miss,
}

enum Job {
    Compute {
        id: String,
        source: Box<Source>,
        key: String,
        request: Request,
        now: u64,
        reply: oneshot::Sender<Result<Answer, Problem>>,
    },
    Confirm {
        id: String,
        version: i64,
    },
    Forget {
        id: String,
    },
}

/// The session threads.
#[derive(Debug)]
pub struct Live {
    threads: Vec<mpsc::Sender<Job>>,
}

impl std::fmt::Debug for Job {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Job")
    }
}

impl Live {
    /// `threads` session threads (at least one), each keeping at most `kept` sessions.
    pub fn start(threads: usize, kept: usize) -> Live {
        let threads = (0..threads.max(1))
            .map(|n| {
                let (jobs, queue) = mpsc::channel();
                let spawned = std::thread::Builder::new()
                    .name(format!("stagehand-sessions-{n}"))
                    .spawn(move || Thread::new(kept.max(1)).serve(&queue));
                if let Err(error) = spawned {
                    crate::note!("stagehand serve: cannot start a session thread: {error}");
                }
                jobs
            })
            .collect();
        Live { threads }
    }

    /// As many session threads as the machine has cores (at most 4).
    pub fn for_this_machine() -> Live {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        Live::start(cores.clamp(1, 4), KEPT_PER_THREAD)
    }

    fn thread(&self, id: &str) -> &mpsc::Sender<Job> {
        let hash = BuildHasherDefault::<DefaultHasher>::default().hash_one(id);
        &self.threads[usize::try_from(hash % self.threads.len() as u64).unwrap_or(0)]
    }

    /// Runs `request` under `key` on the session `id`, taken from `source`.
    pub async fn compute(
        &self,
        id: &str,
        source: Source,
        key: &str,
        request: &Request,
        now: u64,
    ) -> Result<Answer, Problem> {
        let (reply, answer) = oneshot::channel();
        let source = Box::new(source);
        let job = Job::Compute { id: id.to_owned(), source, key: key.to_owned(), request: request.clone(), now, reply };
        self.thread(id).send(job).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// The session `id` committed at `version`: what was computed for it may be used again.
    pub fn confirm(&self, id: &str, version: i64) {
        let _ = self.thread(id).send(Job::Confirm { id: id.to_owned(), version });
    }

    /// Drops the session `id` if it is kept (it was deleted).
    pub fn forget(&self, id: &str) {
        let _ = self.thread(id).send(Job::Forget { id: id.to_owned() });
    }
}

fn stopped() -> Problem {
    Problem::internal("a session thread has stopped")
}

/// One session thread's sessions.
struct Thread {
    kept: HashMap<String, Entry>,
    most: usize,
    clock: u64,
    /// By document fingerprint: the `receipts` of a snapshot with none (the session layer's
    /// spelling of "no receipts", taken from a fresh session once).
    no_receipts: HashMap<String, Value>,
}

impl Thread {
    fn new(most: usize) -> Thread {
        Thread { kept: HashMap::new(), most, clock: 0, no_receipts: HashMap::new() }
    }

    fn serve(mut self, queue: &mpsc::Receiver<Job>) {
        while let Ok(job) = queue.recv() {
            self.clock += 1;
            match job {
                Job::Compute { id, source, key, request, now, reply } => {
                    let answer =
                        std::panic::catch_unwind(AssertUnwindSafe(|| self.compute(id, *source, &key, &request, now)))
                            .unwrap_or_else(|_| Err(Problem::internal("the session failed while computing")));
                    let _ = reply.send(answer);
                }
                Job::Confirm { id, version } => {
                    if let Some(entry) = self.kept.get_mut(&id) {
                        if entry.version == version {
                            entry.confirmed = true;
                        }
                    }
                }
                Job::Forget { id } => {
                    self.kept.remove(&id);
                }
            }
        }
    }

    fn compute(
        &mut self,
        id: String,
        source: Source,
        key: &str,
        request: &Request,
        now: u64,
    ) -> Result<Answer, Problem> {
        let mut entry = match source {
            Source::Kept { token } => match self.kept.remove(&id) {
                Some(entry) if entry.confirmed && token_matches(&token, &entry.token_hash) => entry,
                Some(entry) => {
                    // A wrong token must not cost the session its place; a tentative one is
                    // never used again.
                    if entry.confirmed {
                        self.kept.insert(id, entry);
                    }
                    return Ok(Answer::Miss);
                }
                None => return Ok(Answer::Miss),
            },
            Source::Row { row, document } => match self.kept.remove(&id) {
                Some(entry) if entry.confirmed && entry.version == row.version => entry,
                _ => restore(row, document)?,
            },
        };
        // A session with a world keeps its receipts: the world's moves are keyed `world:N` from
        // how many the session holds (S18), so they must not be forgotten (S27).
        let no_receipts =
            if STRIP_RECEIPTS && entry.world.is_none() { Some(self.no_receipts(&entry.held)?) } else { None };
        let from_version = entry.version;
        let world = entry.world.as_deref();
        let (computed, renew) = entry.held.with_dependent_mut(|_, session| {
            run_on(&mut **session, world, None, key, request, now, from_version, no_receipts)
        })?;
        if let Some(snapshot) = renew {
            // Too many receipts held: put the session back from its receipt-less snapshot.
            let document = entry.held.borrow_owner().clone();
            match Held::try_new(document, |document| document.restore(snapshot)) {
                Ok(held) => entry.held = held,
                Err(_) => return Ok(Answer::Computed(computed)),
            }
        }
        entry.version = from_version + 1;
        entry.confirmed = false;
        entry.used = self.clock;
        self.kept.insert(id, entry);
        self.bound();
        Ok(Answer::Computed(computed))
    }

    /// The "no receipts" of the entry's document.
    fn no_receipts(&mut self, held: &Held) -> Result<Value, Problem> {
        let document = held.borrow_owner();
        if let Some(value) = self.no_receipts.get(document.fingerprint()) {
            return Ok(value.clone());
        }
        let mut fresh = document.start("no-receipts", 0, 0).map_err(failed)?;
        let value = fresh.snapshot_value().map_err(failed)?.get("receipts").cloned().unwrap_or(Value::Null);
        self.no_receipts.insert(document.fingerprint().to_owned(), value.clone());
        Ok(value)
    }

    /// Drops the least recently used quarter when more than `most` are kept.
    fn bound(&mut self) {
        if self.kept.len() <= self.most {
            return;
        }
        let mut used: Vec<u64> = self.kept.values().map(|e| e.used).collect();
        let cut = self.kept.len() - self.most * 3 / 4;
        let (_, &mut threshold, _) = used.select_nth_unstable(cut.saturating_sub(1));
        self.kept.retain(|_, entry| entry.used > threshold);
    }
}

fn failed(error: impl std::fmt::Display) -> Problem {
    Problem::new(Kind::SessionFailed, error.to_string())
}

/// A session put back from its row.
fn restore(row: SessionRow, document: Arc<Document>) -> Result<Entry, Problem> {
    let snapshot: Value = serde_json::from_str(&row.snapshot).map_err(Problem::internal)?;
    let held = Held::try_new(document, |document| document.restore(snapshot)).map_err(failed)?;
    Ok(Entry { version: row.version, confirmed: true, token_hash: row.token_hash, world: row.world, used: 0, held })
}

/// Puts the session back from its row and runs the request on it, making the agents' port calls
/// with `ports` (S21): synchronous and blocking, for the blocking pool; the session is not kept.
pub(crate) fn compute_from_row(
    document: &Document,
    row: &SessionRow,
    key: &str,
    request: &Request,
    ports: &stagehand_worlds::ports::Bindings,
    now: u64,
) -> Result<Computed, Problem> {
    let snapshot: Value = serde_json::from_str(&row.snapshot).map_err(Problem::internal)?;
    let mut session = document.restore(snapshot).map_err(failed)?;
    let world = row.world.as_deref();
    run_on(&mut *session, world, Some(ports), key, request, now, row.version, None).map(|(computed, _)| computed)
}

/// Runs the request on the session (and, when it executed, lets the session's world answer what it
/// asks, S18, and an agent machine's `ports` its calls, S21) and takes what it made: the response, the trace lines, the transcript, and the
/// snapshot, without receipts when `no_receipts` says how "none" is spelled. When it was stripped
/// so and the session holds more than
/// [`RECEIPTS_IN_MEMORY`] receipts, also that snapshot as a value, to put it back from.
#[allow(clippy::too_many_arguments)]
fn run_on(
    session: &mut dyn AnySession,
    world: Option<&str>,
    ports: Option<&stagehand_worlds::ports::Bindings>,
    key: &str,
    request: &Request,
    now: u64,
    from_version: i64,
    no_receipts: Option<Value>,
) -> Result<(Computed, Option<Value>), Problem> {
    let receipt = match request {
        Request::Apply { action_id } => session.apply(action_id, key, now),
        Request::Input { question_id, text } => {
            let question = match question_id {
                Some(id) => id.clone(),
                None => session.describe().pending_questions.first().map(|q| q.question_id.clone()).unwrap_or_default(),
            };
            session.input(&question, text, key, now)
        }
    };
    let settled = match receipt {
        Receipt::Executed { .. } => crate::world::settle_with(session, world, ports, now)?,
        _ => crate::world::Settled::default(),
    };
    let view = session.describe();
    let trace = session
        .take_trace()
        .iter()
        .map(|record| (i64::try_from(record.sequence).unwrap_or(i64::MAX), record.to_json_line()))
        .collect();
    let mut value = session.snapshot_value().map_err(failed)?;
    let stripped = match (no_receipts, value.get_mut("receipts")) {
        (Some(none), Some(receipts)) => {
            *receipts = none;
            true
        }
        _ => false,
    };
    let snapshot = value.to_string();
    let (status, body, disposition, mut transcript) = respond(&receipt, &view, from_version + 1);
    // What the session's world answered after the request (decision S18).
    let body = settled.attach(body);
    transcript.extend(transcript_lines(&settled.reported));
    let renew = (stripped && session.receipt_count() > RECEIPTS_IN_MEMORY).then_some(value);
    Ok((Computed { from_version, snapshot, status, body, disposition, trace, transcript }, renew))
}

#[cfg(test)]
mod tests;
