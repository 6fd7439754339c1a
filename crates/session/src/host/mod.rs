//! One sans-IO session over any [`Engine`]: the host contract's control surface (decisions H1-H13
//! and H30-H35 in `docs/design/host-contract.md`).
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
//! - A turn need not allocate (H30-H35): [`Session::describe_into`] and [`Session::apply_into`]
//!   overwrite a view and a receipt the host keeps, the engine lends its events
//!   ([`Engine::take_lent`]), receipts are kept flat, the trace stays typed until
//!   [`Session::take_trace`] or [`Session::take_trace_lines`], and [`Session::write_snapshot`]
//!   writes a snapshot without copying the journal.

mod actions;
mod any;
mod pending;
mod receipts;
mod trace;

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use stagehand_protocol::{Engine, EngineError, Event, OwnedEvent, PortAnswer, Receipt, Reported, View};

pub use any::{snapshot_of, AnySession};
pub use pending::{Asked, Call, MenuOption, Move, Pending};
pub use trace::{Sequences, TraceRecord, TraceType, TRACE_SCHEMA_VERSION};

use actions::Act;
use receipts::Receipts;
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
    receipts: Receipts,
    trace: Trace,
    disposed: bool,
    /// What the opening `start` reported, until taken (not part of the snapshot).
    opening: Vec<OwnedEvent>,
    /// The engine's own events of the last executed action, kept (when asked for with
    /// [`keep_events`](Session::keep_events)) for a host that renders more than a receipt says.
    kept: Option<Vec<OwnedEvent>>,
    /// The document's fingerprint, asked of the engine once (not part of the snapshot's data).
    fingerprint: Option<String>,
}

/// What one move's events told the session besides what they report.
#[derive(Debug, Default)]
struct Heard {
    /// What the last request asked, as the session would wait on it.
    request: Option<Pending>,
    /// The first and the last refusal, spelled `reason: explanation`.
    first_refusal: Option<String>,
    last_refusal: Option<String>,
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
        let id = id.into();
        let mut session = Session {
            engine,
            receipts: Receipts::new(&id),
            id,
            initial,
            journal: Vec::new(),
            pending: Pending::Start,
            trace: Trace::default(),
            disposed: false,
            opening: Vec::new(),
            kept: None,
            fingerprint: None,
        };
        let state_id = session.trace.put_with(|out| session.engine.write_state_id(out));
        let description = session.trace.put_with(|out| session.engine.write_description(out));
        session.trace.started(now, state_id, description);
        let (mut reported, mut opening) = (Vec::new(), Vec::new());
        session.take(Move::Start { anchor: anchor.map(str::to_owned) }, &mut reported, Some(&mut opening));
        session.opening = opening;
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
        let fingerprint = engine.fingerprint();
        if snapshot.fingerprint != fingerprint {
            return Err(HostError::Mismatch("it was made of another document (its fingerprint differs)".to_owned()));
        }
        engine.restore(&snapshot.engine)?;
        let mut receipts = Receipts::new(&snapshot.session_id);
        for (key, recorded) in &snapshot.receipts {
            receipts.record(key, recorded);
        }
        Ok(Session {
            engine,
            id: snapshot.session_id,
            initial: snapshot.initial,
            journal: snapshot.journal,
            pending: snapshot.pending,
            receipts,
            trace: Trace::continuing(snapshot.sequences),
            disposed: snapshot.disposed,
            opening: Vec::new(),
            kept: None,
            fingerprint: Some(fingerprint),
        })
    }

    /// The session as plain data. It copies the journal and every receipt; to save a session,
    /// [`write_snapshot`](Self::write_snapshot) writes the same JSON without the copies.
    pub fn snapshot(&mut self) -> Result<SessionSnapshot<E::Snapshot>, HostError> {
        Ok(SessionSnapshot {
            schema_version: SESSION_SNAPSHOT_VERSION,
            session_id: self.id.clone(),
            fingerprint: self.fingerprint().to_owned(),
            engine: self.engine.snapshot()?,
            initial: self.initial.clone(),
            journal: self.journal.clone(),
            pending: self.pending.clone(),
            receipts: self.receipts.to_map(),
            sequences: self.trace.sequences,
            disposed: self.disposed,
        })
    }

    /// Writes the session's snapshot as JSON to `out`: the bytes `serde_json` writes for
    /// [`snapshot`](Self::snapshot), without copying the journal (H34).
    pub fn write_snapshot(&mut self, out: &mut Vec<u8>) -> Result<(), HostError> {
        self.fingerprint();
        let engine = self.engine.snapshot()?;
        let borrowed = SnapshotJson {
            schema_version: SESSION_SNAPSHOT_VERSION,
            session_id: &self.id,
            fingerprint: self.fingerprint.as_deref().unwrap_or_default(),
            engine: &engine,
            initial: &self.initial,
            journal: &self.journal,
            pending: &self.pending,
            receipts: ReceiptsJson(&self.receipts),
            sequences: self.trace.sequences,
            disposed: self.disposed,
        };
        serde_json::to_writer(out, &borrowed).map_err(|e| HostError::Engine(EngineError::new(e.to_string())))
    }

    /// The document's fingerprint, asked of the engine the first time only.
    fn fingerprint(&mut self) -> &str {
        self.fingerprint.get_or_insert_with(|| self.engine.fingerprint())
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
        self.receipts.find(key).is_some()
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
        self.trace.take(&self.id)
    }

    /// Takes the trace records made since the last call, in order, written to `out` as JSON
    /// lines (each ended by a newline): byte for byte [`TraceRecord::to_json_line`] of each
    /// record [`take_trace`](Self::take_trace) would give, without building them (H33).
    pub fn take_trace_lines(&mut self, out: &mut Vec<u8>) {
        self.trace.take_lines(&self.id, out);
    }

    /// Drops the trace records made since the last call, for a host that keeps no trace.
    pub fn discard_trace(&mut self) {
        self.trace.clear();
    }

    /// How many trace records wait to be taken.
    pub fn trace_waiting(&self) -> usize {
        self.trace.waiting()
    }

    /// Where the session stands, and what may be applied. No side effects.
    pub fn describe(&self) -> View {
        let mut view = View::empty();
        self.describe_into(&mut view);
        view
    }

    /// [`describe`](Self::describe) written into `view`, reusing the room its strings and
    /// lists already have: a host that keeps one view describes without allocating (H31).
    pub fn describe_into(&self, view: &mut View) {
        actions::view_into(self, view);
    }

    /// Applies the action `action_id` under the idempotency key `key`.
    pub fn apply(&mut self, action_id: &str, key: &str, now: u64) -> Receipt {
        let mut receipt = Receipt::Rejected { reason: String::new() };
        self.apply_into(action_id, key, now, &mut receipt);
        receipt
    }

    /// [`apply`](Self::apply), the receipt written into `receipt`, reusing the room it already
    /// has (H31).
    pub fn apply_into(&mut self, action_id: &str, key: &str, now: u64, receipt: &mut Receipt) {
        if let Some(recorded) = self.receipts.find(key) {
            if recorded.action_id() == action_id && recorded.text().is_none() {
                recorded.fill(receipt);
            } else {
                receipts::set_rejected(receipt, reused(key, recorded.action_id()));
            }
            return;
        }
        if self.disposed {
            receipts::set_rejected(receipt, "the session was disposed".to_owned());
            return;
        }
        self.trace.sequences.apply += 1;
        let call = self.trace.sequences.apply;
        let state_id = self.trace.put_with(|out| self.engine.write_state_id(out));
        self.trace.apply(now, call, action_id, key, state_id);
        match actions::parse(self, action_id) {
            Err(reason) => receipts::set_rejected(receipt, reason),
            Ok(act) => self.execute(act, receipt),
        }
        self.settle(key, action_id, None, receipt);
        self.trace.finished(now, TraceType::ApplyFinished, call, action_id, key, receipt);
    }

    /// Answers the pending question `question_id` with free text, under the idempotency key
    /// `key`. The text is read as the question's kind of answer (`true`/`false`/`yes`/`no` for a
    /// truth, a number for a number, the words themselves for words); once every question of a
    /// request is answered, the answers are supplied to the engine.
    pub fn input(&mut self, question_id: &str, text: &str, key: &str, now: u64) -> Receipt {
        let action_id = format!("answer:{question_id}");
        if let Some(recorded) = self.receipts.find(key) {
            return if recorded.action_id() == action_id && recorded.text() == Some(text) {
                recorded.receipt()
            } else {
                Receipt::Rejected { reason: reused(key, recorded.action_id()) }
            };
        }
        if self.disposed {
            return Receipt::Rejected { reason: "the session was disposed".to_owned() };
        }
        self.trace.sequences.input += 1;
        let call = self.trace.sequences.input;
        let state_id = self.trace.put_with(|out| self.engine.write_state_id(out));
        self.trace.input(now, call, question_id, text, key, state_id);
        let mut receipt = Receipt::Rejected { reason: String::new() };
        match actions::answer(self, question_id, text) {
            Err(reason) => receipts::set_rejected(&mut receipt, reason),
            Ok(act) => self.execute(act, &mut receipt),
        }
        self.settle(key, &action_id, Some(text), &receipt);
        self.trace.finished(now, TraceType::InputSettled, call, question_id, key, &receipt);
        receipt
    }

    /// Answers the pending port call with the host's typed `answer`, under the idempotency key
    /// `key` (decision H45). It is recorded and traced as an apply of `answer:CALL_ID`; an
    /// answer that does not fit the call, or no call pending, is rejected.
    pub fn answer(&mut self, answer: PortAnswer, key: &str, now: u64) -> Receipt {
        let call_id = match &self.pending {
            Pending::Call { call } => call.call_id().to_owned(),
            _ => String::new(),
        };
        let action_id = format!("answer:{call_id}");
        if let Some(recorded) = self.receipts.find(key) {
            return if recorded.action_id() == action_id && recorded.text().is_none() {
                recorded.receipt()
            } else {
                Receipt::Rejected { reason: reused(key, recorded.action_id()) }
            };
        }
        if self.disposed {
            return Receipt::Rejected { reason: "the session was disposed".to_owned() };
        }
        self.trace.sequences.apply += 1;
        let call = self.trace.sequences.apply;
        let state_id = self.trace.put_with(|out| self.engine.write_state_id(out));
        self.trace.apply(now, call, &action_id, key, state_id);
        let mut receipt = Receipt::Rejected { reason: String::new() };
        match &self.pending {
            Pending::Call { call } if answer.fits(call) => {
                self.execute(Act::Take(Move::Answer { answer }), &mut receipt)
            }
            Pending::Call { call } => {
                receipts::set_rejected(&mut receipt, format!("that answer does not answer {}", call.describe()));
            }
            _ => receipts::set_rejected(&mut receipt, "no port call is pending".to_owned()),
        }
        self.settle(key, &action_id, None, &receipt);
        self.trace.finished(now, TraceType::ApplyFinished, call, &action_id, key, &receipt);
        receipt
    }

    /// Ends the session for good: records `session.disposed` once. Later applies are rejected.
    pub fn dispose(&mut self, now: u64) {
        if !self.disposed {
            self.disposed = true;
            let state_id = self.trace.put_with(|out| self.engine.write_state_id(out));
            self.trace.disposed(now, state_id);
        }
    }

    /// Records a receipt that was not rejected under its key.
    fn settle(&mut self, key: &str, action_id: &str, text: Option<&str>, receipt: &Receipt) {
        match receipt {
            Receipt::Rejected { .. } => {}
            Receipt::Failed { error } => self.receipts.record_failed(key, action_id, text, error),
            Receipt::Executed { outcome, events } => {
                self.receipts.record_executed(key, action_id, text, *outcome, events);
            }
        }
    }

    /// Gives the engine one move, journals it and settles what the session waits on. What the
    /// engine reported is written over `reported` (its room reused); what else the events said.
    fn take(&mut self, step: Move, reported: &mut Vec<Reported>, mut owned: Option<&mut Vec<OwnedEvent>>) -> Heard {
        let mut heard = Heard::default();
        let mut filled = 0;
        self.engine.take_lent(step.command(), &mut |event: &Event<'_>| {
            if let Some(owned) = owned.as_deref_mut() {
                owned.push(event.clone().into_owned());
            }
            if filled == reported.len() {
                reported.push(Reported { kind: String::new(), speaker: None, text: None, speech: None });
            }
            receipts::report_into(&mut reported[filled], event);
            filled += 1;
            match event {
                Event::Refused { reason, explanation } => {
                    let refusal = format!("{}: {explanation}", reason.as_str());
                    heard.first_refusal.get_or_insert_with(|| refusal.clone());
                    heard.last_refusal = Some(refusal);
                }
                Event::Offer { .. } | Event::Perform { .. } | Event::Resolve { .. } | Event::Call { .. } => {
                    heard.request = Pending::of_request(event);
                }
                _ => {}
            }
        });
        reported.truncate(filled);
        self.pending = Pending::settle_heard(
            &self.pending,
            self.engine.waiting(),
            heard.request.take(),
            heard.last_refusal.clone(),
        );
        if let (Move::Failed { explanation }, Pending::Perform { failed, .. }) = (&step, &mut self.pending) {
            *failed = Some(explanation.clone());
        }
        self.journal.push(step);
        heard
    }

    /// Restores the initial snapshot and replays `journal`; what the last move heard, its
    /// events written over `reported` (and, when asked, kept in `owned`).
    fn replay(
        &mut self,
        journal: Vec<Move>,
        reported: &mut Vec<Reported>,
        mut owned: Option<&mut Vec<OwnedEvent>>,
    ) -> Result<Heard, EngineError> {
        let initial = self.initial.clone();
        self.engine.restore(&initial)?;
        self.journal.clear();
        self.pending = Pending::Start;
        let mut last = Heard::default();
        reported.clear();
        for step in journal {
            if let Some(owned) = owned.as_deref_mut() {
                owned.clear();
            }
            last = self.take(step, reported, owned.as_deref_mut());
        }
        Ok(last)
    }

    fn execute(&mut self, act: Act, receipt: &mut Receipt) {
        let mut events = match std::mem::replace(receipt, Receipt::Rejected { reason: String::new() }) {
            Receipt::Executed { events, .. } => events,
            _ => Vec::new(),
        };
        // The engine's own events are kept only for a host that asked (H44).
        let mut kept = self.kept.take();
        if let Some(kept) = &mut kept {
            kept.clear();
        }
        let heard = match act {
            Act::Take(step) => Ok(self.take(step, &mut events, kept.as_mut())),
            Act::Begin(step) => {
                // A start the engine refuses changed nothing: it is not journalled (H40).
                let previous = self.pending.clone();
                let heard = self.take(step, &mut events, kept.as_mut());
                if let Some(reason) = heard.first_refusal.clone().filter(|_| !matches!(self.pending, Pending::Stopped))
                {
                    self.journal.pop();
                    self.pending = previous;
                    self.kept = kept.map(|mut k| {
                        k.clear();
                        k
                    });
                    *receipt = Receipt::Rejected { reason };
                    return;
                }
                Ok(heard)
            }
            Act::Retry => {
                if let Pending::Perform { failed, .. } = &mut self.pending {
                    *failed = None;
                }
                events.clear();
                Ok(Heard::default())
            }
            Act::Give(asked) => {
                self.pending = Pending::Resolve { asked };
                events.clear();
                Ok(Heard::default())
            }
            Act::Undo(keep) => {
                let journal = self.journal[..keep].to_vec();
                self.replay(journal, &mut events, kept.as_mut())
            }
            Act::Restart => self.replay(vec![Move::Start { anchor: None }], &mut events, kept.as_mut()),
        };
        self.kept = kept;
        *receipt = match heard {
            Err(error) => Receipt::Failed { error: error.to_string() },
            Ok(Heard { first_refusal: Some(error), .. }) if !matches!(self.pending, Pending::Stopped) => {
                Receipt::Failed { error }
            }
            Ok(_) => Receipt::Executed { outcome: actions::outcome(&self.pending), events },
        };
    }
}

fn reused(key: &str, action_id: &str) -> String {
    format!("the idempotency key {key:?} was already used for {action_id}")
}

/// A session snapshot, borrowed from the session: [`SessionSnapshot`]'s spelling.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SnapshotJson<'a, S: Serialize> {
    schema_version: u32,
    session_id: &'a str,
    fingerprint: &'a str,
    engine: &'a S,
    initial: &'a S,
    journal: &'a [Move],
    pending: &'a Pending,
    receipts: ReceiptsJson<'a>,
    sequences: Sequences,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    disposed: bool,
}

/// The receipts as a snapshot spells them: an object by key, in key order.
struct ReceiptsJson<'a>(&'a Receipts);

impl Serialize for ReceiptsJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize_by_key(serializer)
    }
}
