//! One sans-IO session over any [`Engine`]: the host contract's control surface (decisions H1-H10
//! in `docs/design/host-contract.md`).
//!
//! - [`Session::describe`] gives the [`View`]: status, whether it is at rest, the state id and a
//!   description, the pending questions, the last error, and the actions that may be applied.
//!   It changes nothing and traces nothing.
//! - [`Session::apply`] applies one action under an idempotency key and returns a [`Receipt`];
//!   [`Session::input`] answers a pending question with free text the same way. The same key
//!   with the same action returns the recorded receipt and executes nothing; with another action
//!   it is rejected; a rejected key is not remembered. Receipts are saved in the snapshot.
//! - The session never calls a world: requests (`perform`, `resolve`) stay pending in the view
//!   until the host answers them through `apply` (`done`, `failed`) or `input`.
//! - Undo and restart replay the journal from the engine's initial snapshot; nothing is inverted.
//! - Every public call that changes something takes `now`, the host's time in Unix milliseconds,
//!   for the trace: the session reads no clock.

mod actions;
mod any;
mod pending;
mod trace;

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use stagehand_protocol::{Engine, EngineError, OwnedEvent, Receipt, Reported, View};

pub use any::{snapshot_of, AnySession};
pub use pending::{Asked, Call, MenuOption, Move, Pending};
pub use trace::{Sequences, TraceRecord, TraceType, TRACE_SCHEMA_VERSION};

use actions::Act;
use trace::Trace;

/// The version of a session snapshot's shape.
pub const SESSION_SNAPSHOT_VERSION: u32 = 1;

/// A receipt recorded under its idempotency key, with what it was for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Recorded {
    /// The action id (for `input`, `answer:QUESTION_ID`).
    pub action_id: String,
    /// The text an `input` carried.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The receipt returned.
    pub receipt: Receipt,
}

/// A session as plain data: restore it with [`Session::restore`] on a fresh engine of the same
/// document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[serde(bound(serialize = "S: Serialize", deserialize = "S: DeserializeOwned"))]
pub struct SessionSnapshot<S> {
    /// [`SESSION_SNAPSHOT_VERSION`].
    pub schema_version: u32,
    /// The session's id.
    pub session_id: String,
    /// The document's fingerprint.
    pub fingerprint: String,
    /// The engine now.
    pub engine: S,
    /// The engine before it started: what undo and restart replay from.
    pub initial: S,
    /// Every command since the last restart, the opening `start` first.
    pub journal: Vec<Move>,
    /// What the session waits on.
    pub pending: Pending,
    /// The receipts, by idempotency key.
    pub receipts: BTreeMap<String, Recorded>,
    /// The trace's counters.
    pub sequences: Sequences,
    /// Whether the session was disposed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disposed: bool,
}

/// Why a session could not be made or restored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// The engine could not take or restore a snapshot.
    #[error("the engine failed: {0}")]
    Engine(#[from] EngineError),
    /// The snapshot was made of another document, or by another version of the session layer.
    #[error("the snapshot does not fit: {0}")]
    Mismatch(String),
}

/// One playthrough of one document by any engine.
#[derive(Debug)]
pub struct Session<E: Engine> {
    engine: E,
    id: String,
    initial: E::Snapshot,
    journal: Vec<Move>,
    pending: Pending,
    receipts: BTreeMap<String, Recorded>,
    trace: Trace,
    disposed: bool,
    /// What the opening `start` reported, until taken (not part of the snapshot).
    opening: Vec<OwnedEvent>,
    /// The engine's own events of the last executed action, kept (when asked for with
    /// [`keep_events`](Session::keep_events)) for a host that renders more than a receipt says.
    kept: Option<Vec<OwnedEvent>>,
}

impl<E: Engine> Session<E> {
    /// A session of a fresh engine: records `session.started`, then starts the engine at the
    /// entry.
    pub fn new(engine: E, id: impl Into<String>, now: u64) -> Result<Self, HostError> {
        Self::starting_at(engine, id, None, now)
    }

    /// [`new`](Self::new), starting the engine at `anchor` (a DialogueDown anchor, a ChatMapper
    /// conversation by id or title) instead of the entry. An anchor the engine refuses leaves the
    /// session stuck, with the refusal in [`take_opening`](Self::take_opening) (decision H40).
    pub fn starting_at(
        mut engine: E,
        id: impl Into<String>,
        anchor: Option<&str>,
        now: u64,
    ) -> Result<Self, HostError> {
        let initial = engine.snapshot()?;
        let mut session = Session {
            engine,
            id: id.into(),
            initial,
            journal: Vec::new(),
            pending: Pending::Start,
            receipts: BTreeMap::new(),
            trace: Trace::default(),
            disposed: false,
            opening: Vec::new(),
            kept: None,
        };
        let payload = json!({"stateId": session.engine.state_id(), "description": session.engine.describe()});
        session.emit(now, TraceType::SessionStarted, None, payload);
        session.opening = session.take(Move::Start { anchor: anchor.map(str::to_owned) });
        Ok(session)
    }

    /// Puts a session back on a fresh engine of the same document, without `session.started`:
    /// its trace continues where it stopped.
    pub fn restore(mut engine: E, snapshot: SessionSnapshot<E::Snapshot>) -> Result<Self, HostError> {
        if snapshot.schema_version != SESSION_SNAPSHOT_VERSION {
            return Err(HostError::Mismatch(format!(
                "its schema version is {}; this build reads {SESSION_SNAPSHOT_VERSION}",
                snapshot.schema_version
            )));
        }
        if snapshot.fingerprint != engine.fingerprint() {
            return Err(HostError::Mismatch("it was made of another document (its fingerprint differs)".to_owned()));
        }
        engine.restore(&snapshot.engine)?;
        let trace = Trace { sequences: snapshot.sequences, buffer: Vec::new() };
        Ok(Session {
            engine,
            id: snapshot.session_id,
            initial: snapshot.initial,
            journal: snapshot.journal,
            pending: snapshot.pending,
            receipts: snapshot.receipts,
            trace,
            disposed: snapshot.disposed,
            opening: Vec::new(),
            kept: None,
        })
    }

    /// The session as plain data.
    pub fn snapshot(&mut self) -> Result<SessionSnapshot<E::Snapshot>, HostError> {
        Ok(SessionSnapshot {
            schema_version: SESSION_SNAPSHOT_VERSION,
            session_id: self.id.clone(),
            fingerprint: self.engine.fingerprint(),
            engine: self.engine.snapshot()?,
            initial: self.initial.clone(),
            journal: self.journal.clone(),
            pending: self.pending.clone(),
            receipts: self.receipts.clone(),
            sequences: self.trace.sequences,
            disposed: self.disposed,
        })
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// What the session waits on.
    pub fn pending(&self) -> &Pending {
        &self.pending
    }

    /// Every command since the last restart.
    pub fn journal(&self) -> &[Move] {
        &self.journal
    }

    /// The engine.
    pub fn engine(&self) -> &E {
        &self.engine
    }

    /// What the opening `start` reported (what was said before any apply), once: later calls,
    /// and calls on a restored session, give nothing.
    pub fn take_opening(&mut self) -> Vec<Reported> {
        std::mem::take(&mut self.opening).iter().map(Reported::of).collect()
    }

    /// [`take_opening`](Self::take_opening), as the engine's own events.
    pub fn take_opening_events(&mut self) -> Vec<OwnedEvent> {
        std::mem::take(&mut self.opening)
    }

    /// From now on, keeps the engine's own events of each executed action for
    /// [`take_events`](Self::take_events) (a terminal renders styled speech and menus from them;
    /// a receipt holds them as plain text).
    pub fn keep_events(&mut self) {
        self.kept.get_or_insert_with(Vec::new);
    }

    /// The engine's events of the last executed action (empty unless
    /// [`keep_events`](Self::keep_events) was called, or after a rejected action).
    pub fn take_events(&mut self) -> Vec<OwnedEvent> {
        self.kept.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// What the engine logged since the last call ([`Engine::take_log`]).
    pub fn take_log(&mut self) -> Vec<String> {
        self.engine.take_log()
    }

    /// Whether a receipt is recorded under the idempotency key `key`.
    pub fn has_key(&self, key: &str) -> bool {
        self.receipts.contains_key(key)
    }

    /// How many receipts are recorded (they are never forgotten, so this only grows).
    pub fn receipt_count(&self) -> usize {
        self.receipts.len()
    }

    /// Whether [`dispose`](Self::dispose) was called.
    pub fn is_disposed(&self) -> bool {
        self.disposed
    }

    /// Takes the trace records made since the last call, in order.
    pub fn take_trace(&mut self) -> Vec<TraceRecord> {
        std::mem::take(&mut self.trace.buffer)
    }

    /// Where the session stands, and what may be applied. No side effects.
    pub fn describe(&self) -> View {
        actions::view(self)
    }

    /// Applies the action `action_id` under the idempotency key `key`.
    pub fn apply(&mut self, action_id: &str, key: &str, now: u64) -> Receipt {
        if let Some(recorded) = self.receipts.get(key) {
            return if recorded.action_id == action_id && recorded.text.is_none() {
                recorded.receipt.clone()
            } else {
                reused(key, &recorded.action_id)
            };
        }
        if self.disposed {
            return Receipt::Rejected { reason: "the session was disposed".to_owned() };
        }
        self.trace.sequences.apply += 1;
        let call = format!("apply-{}", self.trace.sequences.apply);
        let started = json!({"actionId": action_id, "key": key, "stateId": self.engine.state_id()});
        self.emit(now, TraceType::ApplyStarted, Some(&call), started);
        let receipt = match actions::parse(self, action_id) {
            Err(reason) => Receipt::Rejected { reason },
            Ok(act) => self.execute(act),
        };
        self.settle(key, action_id, None, &receipt);
        let finished = finish_payload(json!({"actionId": action_id, "key": key}), &receipt);
        self.emit(now, TraceType::ApplyFinished, Some(&call), finished);
        receipt
    }

    /// Answers the pending question `question_id` with free text, under the idempotency key
    /// `key`. The text is read as the question's kind of answer (`true`/`false`/`yes`/`no` for a
    /// truth, a number for a number, the words themselves for words); once every question of a
    /// request is answered, the answers are supplied to the engine.
    pub fn input(&mut self, question_id: &str, text: &str, key: &str, now: u64) -> Receipt {
        let action_id = format!("answer:{question_id}");
        if let Some(recorded) = self.receipts.get(key) {
            return if recorded.action_id == action_id && recorded.text.as_deref() == Some(text) {
                recorded.receipt.clone()
            } else {
                reused(key, &recorded.action_id)
            };
        }
        if self.disposed {
            return Receipt::Rejected { reason: "the session was disposed".to_owned() };
        }
        self.trace.sequences.input += 1;
        let call = format!("input-{}", self.trace.sequences.input);
        let received = json!({"questionId": question_id, "text": text, "key": key, "stateId": self.engine.state_id()});
        self.emit(now, TraceType::InputReceived, Some(&call), received);
        let receipt = match actions::answer(self, question_id, text) {
            Err(reason) => Receipt::Rejected { reason },
            Ok(act) => self.execute(act),
        };
        self.settle(key, &action_id, Some(text), &receipt);
        let settled = finish_payload(json!({"questionId": question_id, "key": key}), &receipt);
        self.emit(now, TraceType::InputSettled, Some(&call), settled);
        receipt
    }

    /// Ends the session for good: records `session.disposed` once. Later applies are rejected.
    pub fn dispose(&mut self, now: u64) {
        if !self.disposed {
            self.disposed = true;
            let payload = json!({"stateId": self.engine.state_id()});
            self.emit(now, TraceType::SessionDisposed, None, payload);
        }
    }

    fn emit(&mut self, now: u64, kind: TraceType, call: Option<&str>, payload: Value) {
        self.trace.emit(&self.id, now, kind, call, payload);
    }

    /// Records a receipt that was not rejected under its key.
    fn settle(&mut self, key: &str, action_id: &str, text: Option<&str>, receipt: &Receipt) {
        if !matches!(receipt, Receipt::Rejected { .. }) {
            let recorded =
                Recorded { action_id: action_id.to_owned(), text: text.map(str::to_owned), receipt: receipt.clone() };
            self.receipts.insert(key.to_owned(), recorded);
        }
    }

    /// Gives the engine one move, journals it and settles what the session waits on; the events.
    fn take(&mut self, step: Move) -> Vec<OwnedEvent> {
        let mut events = Vec::new();
        self.engine.take(step.command(), &mut events);
        self.pending = Pending::settle(&self.pending, self.engine.waiting(), &events);
        if let (Move::Failed { explanation }, Pending::Perform { failed, .. }) = (&step, &mut self.pending) {
            *failed = Some(explanation.clone());
        }
        self.journal.push(step);
        events
    }

    /// Restores the initial snapshot and replays `journal`; the events of its last move.
    fn replay(&mut self, journal: Vec<Move>) -> Result<Vec<OwnedEvent>, EngineError> {
        let initial = self.initial.clone();
        self.engine.restore(&initial)?;
        self.journal.clear();
        self.pending = Pending::Start;
        let mut last = Vec::new();
        for step in journal {
            last = self.take(step);
        }
        Ok(last)
    }

    fn execute(&mut self, act: Act) -> Receipt {
        let events = match act {
            Act::Take(step) => Ok(self.take(step)),
            Act::Begin(step) => {
                // A start the engine refuses changed nothing: it is not journalled (H40).
                let previous = self.pending.clone();
                let events = self.take(step);
                let refused = events.iter().find_map(|e| match e {
                    OwnedEvent::Refused { reason, explanation } => Some(format!("{}: {explanation}", reason.as_str())),
                    _ => None,
                });
                if let Some(reason) = refused.filter(|_| !matches!(self.pending, Pending::Stopped)) {
                    self.journal.pop();
                    self.pending = previous;
                    return Receipt::Rejected { reason };
                }
                Ok(events)
            }
            Act::Retry => {
                if let Pending::Perform { failed, .. } = &mut self.pending {
                    *failed = None;
                }
                Ok(Vec::new())
            }
            Act::Give(asked) => {
                self.pending = Pending::Resolve { asked };
                Ok(Vec::new())
            }
            Act::Undo(keep) => {
                let journal = self.journal[..keep].to_vec();
                self.replay(journal)
            }
            Act::Restart => self.replay(vec![Move::Start { anchor: None }]),
        };
        if let (Some(kept), Ok(events)) = (&mut self.kept, &events) {
            kept.clone_from(events);
        }
        match events {
            Err(error) => Receipt::Failed { error: error.to_string() },
            Ok(events) => match events.iter().find_map(|e| match e {
                OwnedEvent::Refused { reason, explanation } => Some(format!("{}: {explanation}", reason.as_str())),
                _ => None,
            }) {
                Some(error) if !matches!(self.pending, Pending::Stopped) => Receipt::Failed { error },
                _ => Receipt::Executed {
                    outcome: actions::outcome(&self.pending),
                    events: events.iter().map(Reported::of).collect(),
                },
            },
        }
    }
}

fn reused(key: &str, action_id: &str) -> Receipt {
    Receipt::Rejected { reason: format!("the idempotency key {key:?} was already used for {action_id}") }
}

/// A finish record's payload: the disposition and what goes with it.
fn finish_payload(mut payload: Value, receipt: &Receipt) -> Value {
    let object = payload.as_object_mut().expect("an object");
    match receipt {
        Receipt::Rejected { reason } => {
            object.insert("disposition".into(), "rejected".into());
            object.insert("reason".into(), reason.clone().into());
        }
        Receipt::Executed { outcome, .. } => {
            object.insert("disposition".into(), "executed".into());
            object.insert("run".into(), json!({"outcome": outcome}));
        }
        Receipt::Failed { error } => {
            object.insert("disposition".into(), "failed".into());
            object.insert("error".into(), error.clone().into());
        }
    }
    payload
}
