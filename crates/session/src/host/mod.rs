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
//! - A turn need not write what nobody reads (H36-H38): [`Session::look`] is the view read on
//!   demand (its description, state id and labels written only when asked for), and
//!   [`Session::act`] returns the receipt as the session recorded it ([`Applied`]), rendered as
//!   a [`Receipt`] only when asked; `describe` and `apply` are those, rendered.
//! - A turn does only what the contract needs each turn (H49-H51): a plain turn's words stay
//!   with the engine, which gives them again from a replay mark when an old key is replayed or a
//!   snapshot is written (each receipt's words written once); keys are found in a small table of
//!   the session's own.

mod actions;
mod any;
mod chunked;
mod keys;
mod pending;
mod receipts;
mod replayed;
mod snapshot;
mod trace;

use stagehand_protocol::{
    Engine, EngineError, Event, OwnedEvent, PortAnswer, Receipt, ReplayMark, Reported, View, Waiting,
};

pub use actions::{ActionId, Actions, Look};
pub use any::{moves_of, snapshot_of, AnySession};
pub use pending::{Asked, Call, MenuOption, Move, Pending};
pub use receipts::{Applied, Events, ReportedRef};
pub use snapshot::{Recorded, SessionSnapshot, SESSION_SNAPSHOT_VERSION};
pub use trace::{Sequences, TraceRecord, TraceType, TRACE_SCHEMA_VERSION};

use actions::Act;
use receipts::{Identity, Receipts, Retake};
use snapshot::{ReceiptsJson, SnapshotJson};
use trace::{Render, StateAt, Trace};

/// Why an apply whose key, action id or text cannot be recorded is rejected (H53).
const TOO_LONG: &str = "the idempotency key, the action id or the text is 2 GiB or longer";

/// Why anything is rejected after `dispose`, a recorded key's replay included (H10).
const DISPOSED: &str = "the session was disposed";

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

/// Refuses a snapshot written in another version of its shape.
fn readable<S>(snapshot: &SessionSnapshot<S>) -> Result<(), HostError> {
    if snapshot.schema_version == SESSION_SNAPSHOT_VERSION {
        return Ok(());
    }
    Err(HostError::Mismatch(format!(
        "its schema version is {}; this build reads {SESSION_SNAPSHOT_VERSION}",
        snapshot.schema_version
    )))
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
    /// Why the last rejected action was rejected (what its [`Applied`] lends).
    rejected: String,
    /// The engine's own trace records of the move being settled, drained from the engine and
    /// not yet written into the trace (H48).
    traced: Vec<(String, serde_json::Value)>,
    /// The action under way left its events with the engine, which gives them again when this
    /// retake is taken from this mark (H49).
    lent: Option<(ReplayMark, Retake)>,
    /// The engine's own actions (H46) since its last move, once a look asked for them.
    engine_actions: std::cell::OnceCell<Vec<stagehand_protocol::Action>>,
}

/// What the session does with each event a move reports, as the engine lends it.
struct Hearing<'a> {
    receipts: &'a mut Receipts,
    /// Where the events are kept as the engine's own, when a host asked (H44).
    owned: Option<&'a mut Vec<OwnedEvent>>,
    /// Whether the events are left with the engine rather than written down (H49).
    lending: bool,
    heard: &'a mut Heard,
}

impl Hearing<'_> {
    #[inline]
    fn hear(&mut self, event: &Event<'_>) {
        if self.owned.is_some() || !self.lending {
            self.write(event);
        }
        if !matches!(event, Event::Said { .. } | Event::Continued { .. } | Event::Ended) {
            self.heard.hear(event);
        }
    }

    /// Keeps `event` as the engine's own, when asked, and writes it down unless it is left
    /// with the engine.
    #[inline(never)]
    fn write(&mut self, event: &Event<'_>) {
        if let Some(owned) = self.owned.as_deref_mut() {
            owned.push(event.clone().into_owned());
        }
        if !self.lending {
            self.receipts.report(event);
        }
    }
}

impl Heard {
    /// Notes a refusal or a request.
    #[inline(never)]
    fn hear(&mut self, event: &Event<'_>) {
        match event {
            Event::Refused { reason, explanation } => {
                let refusal = format!("{}: {explanation}", reason.as_str());
                self.first_refusal.get_or_insert_with(|| refusal.clone());
                self.last_refusal = Some(refusal);
            }
            Event::Offer { .. } | Event::Perform { .. } | Event::Resolve { .. } | Event::Call { .. } => {
                self.request = Pending::of_request(event);
            }
            _ => {}
        }
    }
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
        engine.set_now(now);
        let initial = engine.snapshot()?;
        let id = id.into();
        let receipts = Receipts::new(&id);
        let mut session = Session::assembled(engine, id, initial, receipts, Trace::default());
        let state_id = session.trace.put_with(|out| session.engine.write_state_id(out));
        let description = session.trace.put_with(|out| session.engine.write_description(out));
        session.trace.started(now, state_id, description);
        let mut opening = Vec::new();
        session.receipts.open();
        session.take(Move::Start { anchor: anchor.map(str::to_owned) }, Some(&mut opening), false);
        session.receipts.discard();
        // What the engine traced as it started follows `session.started`, in no boundary (H48).
        session.trace_engine(now);
        session.opening = opening;
        Ok(session)
    }

    /// Puts a session back on a fresh engine of the same document, without `session.started`:
    /// its trace continues where it stopped.
    pub fn restore(mut engine: E, snapshot: SessionSnapshot<E::Snapshot>) -> Result<Self, HostError> {
        readable(&snapshot)?;
        let fingerprint = engine.fingerprint();
        if snapshot.fingerprint != fingerprint {
            return Err(HostError::Mismatch("it was made of another document (its fingerprint differs)".to_owned()));
        }
        engine.restore(&snapshot.engine)?;
        // A restore traces nothing of the engine's either (H48); its numbering goes on (H71).
        engine.forget_trace();
        let receipts = Receipts::of_snapshot(&snapshot.session_id, &snapshot.receipts);
        let trace = Trace::continuing(snapshot.sequences);
        Ok(Session {
            journal: snapshot.journal,
            pending: snapshot.pending,
            disposed: snapshot.disposed,
            fingerprint: Some(fingerprint),
            ..Session::assembled(engine, snapshot.session_id, snapshot.initial, receipts, trace)
        })
    }

    /// A session of `engine` with these parts, nothing taken yet and nothing in flight: what
    /// making, restoring and replaying a session share.
    fn assembled(engine: E, id: String, initial: E::Snapshot, receipts: Receipts, trace: Trace) -> Self {
        Session {
            engine,
            id,
            initial,
            journal: Vec::new(),
            pending: Pending::Start,
            receipts,
            trace,
            disposed: false,
            opening: Vec::new(),
            kept: None,
            fingerprint: None,
            rejected: String::new(),
            traced: Vec::new(),
            lent: None,
            engine_actions: std::cell::OnceCell::new(),
        }
    }

    /// The session as plain data. It copies the journal and every receipt; to save a session,
    /// [`write_snapshot`](Self::write_snapshot) writes the same JSON without the copies.
    pub fn snapshot(&mut self) -> Result<SessionSnapshot<E::Snapshot>, HostError> {
        self.write_down_all();
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
        self.write_down_all();
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

    /// Writes down the events of every receipt that left them with the engine (H49): each is
    /// written once, by the engine taking its move again from its mark, so a host that saves
    /// after every apply writes one receipt's events per save.
    fn write_down_all(&mut self) {
        let lent: Vec<(usize, ReplayMark, Retake)> = self.receipts.unwritten().collect();
        for (index, mark, retake) in lent {
            self.write_down(index, mark, retake);
        }
        self.receipts.all_written();
    }

    /// Writes down the events of the receipt at `index`, if it left them with the engine.
    fn write_down_at(&mut self, index: usize) {
        if let Some((mark, retake)) = self.receipts.lent_at(index) {
            self.write_down(index, mark, retake);
        }
    }

    /// Writes down the events of the receipt at `index`, which left them with the engine: the
    /// engine takes `retake` again from `mark` (it does not move).
    #[cold]
    fn write_down(&mut self, index: usize, mark: ReplayMark, retake: Retake) {
        let receipts = &mut self.receipts;
        receipts.rewrite();
        let retaken = self.engine.retake_lent(mark, retake.command(), &mut |event| receipts.report(event));
        debug_assert!(retaken, "an engine that gave a replay mark takes its move again from it");
        receipts.written(index);
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
        let mut events = self.kept.as_mut().map(std::mem::take).unwrap_or_default();
        // A host that keeps them (the player's history) keeps no room they do not fill.
        events.shrink_to_fit();
        events
    }

    /// What the engine logged since the last call ([`Engine::take_log`]).
    pub fn take_log(&mut self) -> Vec<String> {
        self.engine.take_log()
    }

    /// Keeps every receipt for the session's life (`true`, the contract's default), or, for a
    /// host that never applies a key twice, only the last one (decision H39): memory then stays
    /// flat however long the run. Without them a replayed key executes again, and a snapshot
    /// holds the last receipt only. The terminal player, whose keys are fresh and never leave
    /// the process, keeps none.
    pub fn retain_receipts(&mut self, retain: bool) {
        self.receipts.set_retain(retain);
    }

    /// Whether a receipt is recorded under the idempotency key `key`.
    pub fn has_key(&self, key: &str) -> bool {
        self.receipts.find(key).is_ok()
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
        let engine = &self.engine;
        let render = Render { receipts: &self.receipts, mark: &|mark, out| engine.write_state_mark(mark, out) };
        self.trace.take(&self.id, &render)
    }

    /// Takes the trace records made since the last call, in order, written to `out` as JSON
    /// lines (each ended by a newline): byte for byte [`TraceRecord::to_json_line`] of each
    /// record [`take_trace`](Self::take_trace) would give, without building them (H33).
    pub fn take_trace_lines(&mut self, out: &mut Vec<u8>) {
        let engine = &self.engine;
        let render = Render { receipts: &self.receipts, mark: &|mark, out| engine.write_state_mark(mark, out) };
        self.trace.take_lines(&self.id, &render, out);
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
        self.look().to_view()
    }

    /// [`describe`](Self::describe) written into `view`, reusing the room its strings and
    /// lists already have: a host that keeps one view describes without allocating (H31).
    pub fn describe_into(&self, view: &mut View) {
        self.look().write_into(view);
    }

    /// The view [`describe`](Self::describe) gives, read on demand (H38): the status and the
    /// actions cost nothing to read, and the description, the state id and the labels are
    /// written only when asked for. No side effects.
    pub fn look(&self) -> Look<'_, E> {
        Look::of(self)
    }

    /// Applies the action `action_id` under the idempotency key `key`.
    pub fn apply(&mut self, action_id: &str, key: &str, now: u64) -> Receipt {
        self.act(action_id, key, now).to_receipt()
    }

    /// [`apply`](Self::apply), the receipt written into `receipt`, reusing the room it already
    /// has (H31).
    pub fn apply_into(&mut self, action_id: &str, key: &str, now: u64, receipt: &mut Receipt) {
        self.act(action_id, key, now).write_into(receipt);
    }

    /// [`apply`](Self::apply), the receipt lent as the session recorded it (H36): render it with
    /// [`Applied::to_receipt`], or read its outcome and events where they are kept. The same
    /// key applied again lends the same record.
    pub fn act(&mut self, action_id: &str, key: &str, now: u64) -> Applied<'_> {
        // The lifecycle is checked before a key is looked up (CONTRACT.md §1.11, apply step 1).
        if self.disposed {
            self.rejected.clear();
            self.rejected.push_str(DISPOSED);
            return Applied::rejected(&self.receipts, &self.rejected);
        }
        let place = match self.receipts.find(key) {
            Err(place) => place,
            Ok(index) => {
                let recorded = Applied::recorded(&self.receipts, index, None);
                if recorded.action_id() == Some(action_id) && recorded.text().is_none() {
                    self.write_down_at(index);
                    return Applied::recorded(&self.receipts, index, None);
                }
                self.rejected = reused(key, recorded.action_id().unwrap_or_default());
                return Applied::rejected(&self.receipts, &self.rejected);
            }
        };
        let id = Identity { key, place, action_id, text: None };
        if let Some(reason) = Self::unrecordable(&id) {
            self.rejected.clear();
            self.rejected.push_str(reason);
            return Applied::rejected(&self.receipts, &self.rejected);
        }
        self.engine.set_now(now);
        self.trace.sequences.apply += 1;
        let call = self.trace.sequences.apply;
        // One mark of the state for the trace and, when the action is a retake, the receipt (H49).
        let replay = self.engine.replay_mark();
        let state_id = match replay {
            Some(replay) => StateAt::Mark(replay.state),
            None => self.state_at(),
        };
        let settled = match actions::parse(self, action_id) {
            Err(reason) => Settled::Rejected(reason),
            Ok(act) => self.execute(act, replay),
        };
        match self.conclude(now, call, id, settled, state_id) {
            Some(index) => Applied::recorded(&self.receipts, index, self.engine.last_plain()),
            None => Applied::rejected(&self.receipts, &self.rejected),
        }
    }

    /// Why an action under `id` cannot be taken before anything runs: the receipt could not be
    /// recorded (H53). (A disposed session is refused before its keys are looked up.)
    #[inline]
    fn unrecordable(id: &Identity<'_>) -> Option<&'static str> {
        (!Receipts::fits(id)).then_some(TOO_LONG)
    }

    /// Settles an apply (call `call` of the trace, begun at `state_id`) and traces its pair;
    /// the index of its receipt, `None` when it was rejected (the reason in `rejected`).
    fn conclude(
        &mut self,
        now: u64,
        call: u64,
        id: Identity<'_>,
        settled: Settled,
        state_id: StateAt,
    ) -> Option<usize> {
        let (action_id, key) = (id.action_id, id.key);
        match self.settle(id, settled) {
            // The engine traced nothing (every dialogue engine): the pair is one entry (H37).
            Some(index) if self.receipts.retains() && self.traced.is_empty() => {
                self.trace.applied(now, call, index, state_id);
                Some(index)
            }
            Some(index) => {
                // The receipt will be forgotten at the next action, or the engine's records come
                // between the pair: the records keep their words (H48).
                self.trace.apply(now, call, action_id, key, state_id);
                self.write_traced(now);
                let applied = Applied::recorded(&self.receipts, index, None);
                let settling = match (applied.outcome(), applied.error()) {
                    (Some(outcome), _) => trace::Settling::Executed(outcome),
                    (None, error) => trace::Settling::Failed(error.unwrap_or_default()),
                };
                self.trace.finished(now, TraceType::ApplyFinished, call, action_id, key, settling);
                Some(index)
            }
            None => {
                self.trace.apply(now, call, action_id, key, state_id);
                self.write_traced(now);
                let reason = trace::Settling::Rejected(&self.rejected);
                self.trace.finished(now, TraceType::ApplyFinished, call, action_id, key, reason);
                None
            }
        }
    }

    /// Answers the pending port call with the host's typed `answer`, under the idempotency key
    /// `key` (decision H45). It is recorded and traced as an apply of `answer:CALL_ID`; an
    /// answer that does not fit the call, or no call pending, is rejected.
    pub fn answer(&mut self, answer: PortAnswer, key: &str, now: u64) -> Receipt {
        if self.disposed {
            return Receipt::Rejected { reason: DISPOSED.to_owned() };
        }
        let call_id = match &self.pending {
            Pending::Call { call } => call.call_id().to_owned(),
            _ => String::new(),
        };
        let action_id = format!("answer:{call_id}");
        let place = match self.receipts.find(key) {
            Err(place) => place,
            Ok(index) => {
                self.write_down_at(index);
                let recorded = Applied::recorded(&self.receipts, index, None);
                return if recorded.action_id() == Some(action_id.as_str()) && recorded.text().is_none() {
                    recorded.to_receipt()
                } else {
                    Receipt::Rejected { reason: reused(key, recorded.action_id().unwrap_or_default()) }
                };
            }
        };
        let id = Identity { key, place, action_id: &action_id, text: None };
        if let Some(reason) = Self::unrecordable(&id) {
            return Receipt::Rejected { reason: reason.to_owned() };
        }
        self.engine.set_now(now);
        self.trace.sequences.apply += 1;
        let call = self.trace.sequences.apply;
        let state_id = self.state_at();
        let fits = match &self.pending {
            Pending::Call { call } if answer.fits(call) => Ok(()),
            Pending::Call { call } => Err(format!("that answer does not answer {}", call.describe())),
            _ => Err("no port call is pending".to_owned()),
        };
        let settled = match fits {
            Ok(()) => self.execute(Act::Take(Move::Answer { answer: Box::new(answer) }), None),
            Err(reason) => Settled::Rejected(reason),
        };
        match self.conclude(now, call, id, settled, state_id) {
            Some(index) => Applied::recorded(&self.receipts, index, self.engine.last_plain()).to_receipt(),
            None => Receipt::Rejected { reason: self.rejected.clone() },
        }
    }

    /// Answers the pending question `question_id` with free text, under the idempotency key
    /// `key`. The text is read as the question's kind of answer (`true`/`false`/`yes`/`no` for a
    /// truth, a number for a number, the words themselves for words); once every question of a
    /// request is answered, the answers are supplied to the engine.
    pub fn input(&mut self, question_id: &str, text: &str, key: &str, now: u64) -> Receipt {
        if self.disposed {
            return Receipt::Rejected { reason: DISPOSED.to_owned() };
        }
        let action_id = format!("answer:{question_id}");
        let place = match self.receipts.find(key) {
            Err(place) => place,
            Ok(index) => {
                self.write_down_at(index);
                let recorded = Applied::recorded(&self.receipts, index, None);
                return if recorded.action_id() == Some(action_id.as_str()) && recorded.text() == Some(text) {
                    recorded.to_receipt()
                } else {
                    Receipt::Rejected { reason: reused(key, recorded.action_id().unwrap_or_default()) }
                };
            }
        };
        let id = Identity { key, place, action_id: &action_id, text: Some(text) };
        if let Some(reason) = Self::unrecordable(&id) {
            return Receipt::Rejected { reason: reason.to_owned() };
        }
        self.engine.set_now(now);
        self.trace.sequences.input += 1;
        let call = self.trace.sequences.input;
        let state_id = self.state_at();
        self.trace.input(now, call, question_id, text, key, state_id);
        let settled = match actions::answer(self, question_id, text) {
            Err(reason) => Settled::Rejected(reason),
            Ok(act) => self.execute(act, None),
        };
        let (applied, settling) = match self.settle(id, settled) {
            Some(index) => {
                let applied = Applied::recorded(&self.receipts, index, self.engine.last_plain());
                let settling = match (applied.outcome(), applied.error()) {
                    (Some(outcome), _) => trace::Settling::Executed(outcome),
                    (None, error) => trace::Settling::Failed(error.unwrap_or_default()),
                };
                (applied, settling)
            }
            None => (Applied::rejected(&self.receipts, &self.rejected), trace::Settling::Rejected(&self.rejected)),
        };
        let receipt = applied.to_receipt();
        let trace = &mut self.trace;
        for (kind, payload) in self.traced.drain(..) {
            trace.engine(now, &kind, payload);
        }
        self.trace.finished(now, TraceType::InputSettled, call, question_id, key, settling);
        receipt
    }

    /// Ends the session for good: ends the engine's own session too ([`Engine::dispose`]),
    /// writes what the engine traced as it ended, then records `session.disposed`, once (H70).
    /// Later applies are rejected.
    pub fn dispose(&mut self, now: u64) {
        if !self.disposed {
            self.disposed = true;
            let state_id = self.state_at();
            self.engine.set_now(now);
            self.engine.dispose();
            self.trace_engine(now);
            self.trace.disposed(now, state_id);
        }
    }

    /// Writes what the engine traced since it was last asked straight into the trace, in no
    /// boundary: as the session starts and as it ends (H48, H70).
    fn trace_engine(&mut self, now: u64) {
        let trace = &mut self.trace;
        self.engine.drain_trace(&mut |kind, payload| trace.engine(now, kind, payload));
    }

    /// Writes the engine's records of the move being settled into the trace (H48).
    fn write_traced(&mut self, now: u64) {
        for (kind, payload) in self.traced.drain(..) {
            self.trace.engine(now, &kind, payload);
        }
    }

    /// The state id now, for a trace record: the engine's mark, or its words written at once.
    fn state_at(&mut self) -> StateAt {
        match self.engine.state_mark() {
            Some(mark) => StateAt::Mark(mark),
            None => StateAt::Text(self.trace.put_with(|out| self.engine.write_state_id(out))),
        }
    }

    /// Records a receipt that was not rejected under its key (its events are those reported
    /// since the action began); its index. A rejected one leaves its reason in `rejected`.
    fn settle(&mut self, id: Identity<'_>, settled: Settled) -> Option<usize> {
        let lent = self.lent.take();
        match settled {
            Settled::Rejected(reason) => {
                self.receipts.discard();
                self.rejected = reason;
                None
            }
            Settled::Failed(error) => Some(self.receipts.failed(id, &error)),
            Settled::Executed(outcome) => Some(match lent {
                Some(lent) => self.receipts.lent(id, outcome, lent),
                None => self.receipts.executed(id, outcome),
            }),
        }
    }

    /// Gives the engine one move, journals it and settles what the session waits on. What the
    /// engine reported is written down as the receipt's events (and, when asked, kept in
    /// `owned`); what else the events said. To `lend` (with `lent` holding the mark of the
    /// engine's state before the move and the move's retake), events a receipt can read where
    /// the engine keeps them are left there, and `lent` stays set (H49); else it is cleared.
    /// The first refusal the move met, spelled `reason: explanation`.
    fn take(&mut self, step: Move, owned: Option<&mut Vec<OwnedEvent>>, lend: bool) -> Option<String> {
        let mut heard = Heard::default();
        // Left with the engine while every event is one a receipt reads there.
        let lending = lend && self.lent.is_some();
        let mut hearing = Hearing { receipts: &mut self.receipts, owned, lending, heard: &mut heard };
        self.engine.take_lent(step.command(), &mut |event: &Event<'_>| hearing.hear(event));
        if self.engine_actions.get().is_some() {
            self.engine_actions = std::cell::OnceCell::new();
        }
        let waiting = self.engine.waiting();
        // The common case (a line after a line) changes nothing.
        if !(waiting == Waiting::Next && heard.last_refusal.is_none() && self.pending == Pending::Line) {
            self.pending =
                Pending::settle_heard(&self.pending, waiting, heard.request.take(), heard.last_refusal.clone());
        }
        if let (Move::Failed { explanation }, Pending::Perform { failed, .. }) = (&step, &mut self.pending) {
            *failed = Some(explanation.clone());
        }
        if lending && self.engine.last_plain().is_none() {
            // Some event needs its words written.
            self.write_lent();
        } else if !lending {
            self.lent = None;
        }
        self.journal.push(step);
        heard.first_refusal
    }

    /// Writes down the events of the move just taken, which were left with the engine, as the
    /// engine lends them again (or, if it does not keep them, takes the move again from
    /// `replay`): some event needs its words written (H49).
    #[cold]
    fn write_lent(&mut self) {
        let receipts = &mut self.receipts;
        let replay = self.lent.take();
        if !self.engine.last_lent(&mut |event| receipts.report(event)) {
            if let Some((mark, retake)) = replay {
                self.engine.retake_lent(mark, retake.command(), &mut |event| receipts.report(event));
            }
        }
    }

    /// Restores the initial snapshot and replays `journal`; the first refusal the last move met,
    /// its events written down as the receipt's (and, when asked, kept in `owned`).
    fn replay(
        &mut self,
        journal: Vec<Move>,
        mut owned: Option<&mut Vec<OwnedEvent>>,
    ) -> Result<Option<String>, EngineError> {
        let initial = self.initial.clone();
        self.engine.restore(&initial)?;
        self.journal.clear();
        self.pending = Pending::Start;
        let mut last = None;
        for step in journal {
            if let Some(owned) = owned.as_deref_mut() {
                owned.clear();
            }
            self.receipts.discard();
            last = self.take(step, owned.as_deref_mut(), false);
        }
        // A replay re-runs history: what the engine traces again is not new (H48), but for a
        // boundary it left open, whose records the engine keeps to be written again (H71).
        self.engine.forget_trace();
        Ok(last)
    }

    /// Carries out an action, its events written down since the receipts were opened; the
    /// engine's own trace records of it are kept in `traced` until the action settles (H48).
    fn execute(&mut self, act: Act, replay: Option<ReplayMark>) -> Settled {
        let settled = self.carry_out(act, replay);
        let traced = &mut self.traced;
        self.engine.drain_trace(&mut |kind, payload| traced.push((kind.to_owned(), payload)));
        settled
    }

    /// [`execute`](Self::execute) but for the engine's trace.
    #[inline]
    fn carry_out(&mut self, act: Act, replay: Option<ReplayMark>) -> Settled {
        self.receipts.begin();
        // The engine's own events are kept only for a host that asked (H44).
        let mut kept = if self.kept.is_some() { self.kept.take() } else { None };
        if let Some(kept) = &mut kept {
            kept.clear();
        }
        let heard = match act {
            Act::Take(step) => {
                // With the engine's mark before a move it can take again, its events stay with
                // it (H49).
                self.lent = replay.and_then(|mark| Some((mark, Retake::of(&step)?)));
                Ok(self.take(step, kept.as_mut(), true))
            }
            Act::Begin(step) => {
                // A start the engine refuses changed nothing: it is not journalled (H40).
                let previous = self.pending.clone();
                let refusal = self.take(step, kept.as_mut(), false);
                if let Some(reason) = refusal.clone().filter(|_| !matches!(self.pending, Pending::Stopped)) {
                    self.journal.pop();
                    self.pending = previous;
                    self.kept = kept.map(|mut k| {
                        k.clear();
                        k
                    });
                    return Settled::Rejected(reason);
                }
                Ok(refusal)
            }
            Act::Retry => {
                if let Pending::Perform { failed, .. } = &mut self.pending {
                    *failed = None;
                }
                Ok(None)
            }
            Act::Give(asked) => {
                self.pending = Pending::Resolve { asked };
                Ok(None)
            }
            Act::Undo(keep) => {
                let journal = self.journal[..keep].to_vec();
                self.replay(journal, kept.as_mut())
            }
            Act::Restart => self.replay(vec![Move::Start { anchor: None }], kept.as_mut()),
        };
        if kept.is_some() {
            self.kept = kept;
        }
        match heard {
            Err(error) => Settled::Failed(error.to_string()),
            Ok(Some(error)) if !matches!(self.pending, Pending::Stopped) => Settled::Failed(error),
            Ok(_) => Settled::Executed(actions::outcome(&self.pending)),
        }
    }
}

/// How an action settled, before its receipt is recorded.
enum Settled {
    Rejected(String),
    Executed(stagehand_protocol::Outcome),
    Failed(String),
}

fn reused(key: &str, action_id: &str) -> String {
    format!("the idempotency key {key:?} was already used for {action_id}")
}
