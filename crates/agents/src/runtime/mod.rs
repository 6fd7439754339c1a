//! The agent-playbook runtime, sans-IO (CONTRACT.md §1.4–§1.11; docs/design/agents.md A14–A22).
//!
//! A [`Runtime`] plays one [`Machine`] for one session. Its public boundaries — [`init`],
//! [`handle_boss_input`], [`resume_playbook_call`], [`apply`] and [`dispose`] — each return a
//! [`Step`]: the [`Emission`]s to deliver, in order, then either a [`Request`] the host must
//! answer with [`answer`] (a port call, or a drain of the emissions) or the boundary's
//! [`Settled`] value. One boundary is active at a time. The runtime reads no clock: every
//! boundary and every answer carries the host's time in Unix milliseconds, which stamps the
//! trace events it causes.
//!
//! [`init`]: Runtime::init
//! [`handle_boss_input`]: Runtime::handle_boss_input
//! [`resume_playbook_call`]: Runtime::resume_playbook_call
//! [`apply`]: Runtime::apply
//! [`dispose`]: Runtime::dispose
//! [`answer`]: Runtime::answer

mod control;
mod core;
mod drive;
mod invoke;
mod io;
mod snapshot;
mod turn;
mod wire;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

pub use self::core::Sequences;
pub use io::{Continuity, Emission, JudgePurpose, PortAnswer, PortCall, Reply, Request, TraceEvent, TRACE_TYPES};
pub use snapshot::{parse_snapshot, Snapshot, SnapshotError};
pub use wire::*;

use self::core::{Core, Derived, Run, SuspendedCall};
use crate::machine::Machine;
use io::{Halt, Io};

/// Policy knobs the contract leaves to the host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Options {
    /// The deterministic entry event also applies at `failed` when no question is pending
    /// (the 6.x CODE text); by default only at `ready` or a final state (the 8.0 engine).
    #[serde(default)]
    pub entry_from_failed: bool,
    /// The playbook ids a dynamic nested call may target; `None` allows any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<Vec<String>>,
}

/// The session identity (`PlaybookSession` without its ports).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Session {
    /// This session.
    pub session_id: String,
    /// The playbook (the machine's id).
    pub playbook_id: String,
    /// The root of the engagement (`session_id` for a root).
    pub root_session_id: String,
    /// A child's parent session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// The parent's call that started a child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
    /// 0 for a root.
    pub depth: u32,
    /// The frame's view of the root's player store at `init` (a child shares its root's
    /// tokens for the same player, A16).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub player_tokens: BTreeMap<String, String>,
}

impl Session {
    /// A root session.
    pub fn root(session_id: &str, playbook_id: &str) -> Self {
        Session {
            session_id: session_id.to_owned(),
            playbook_id: playbook_id.to_owned(),
            root_session_id: session_id.to_owned(),
            parent_session_id: None,
            parent_call_id: None,
            depth: 0,
            player_tokens: BTreeMap::new(),
        }
    }

    fn check(&self, m: &Machine) -> Result<(), RuntimeError> {
        let bad = |s: &str| Err(RuntimeError::BadSession(s.to_owned()));
        if self.playbook_id != m.id {
            return bad("the session's playbookId is not the machine's id");
        }
        if self.session_id.is_empty() {
            return bad("an empty sessionId");
        }
        let is_root = self.depth == 0;
        if is_root {
            if self.root_session_id != self.session_id
                || self.parent_session_id.is_some()
                || self.parent_call_id.is_some()
            {
                return bad("a root session has rootSessionId == sessionId and no parent");
            }
        } else {
            match (&self.parent_session_id, &self.parent_call_id) {
                (Some(p), Some(_)) if p != &self.session_id && self.root_session_id != self.session_id => {}
                _ => return bad("a child session has both parent fields and its own sessionId"),
            }
        }
        Ok(())
    }
}

/// What a boundary settled to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "settled", rename_all = "camelCase")]
pub enum Settled {
    /// `init`: `Err` keeps the original error; the runtime is unbound and may `init` again.
    Init {
        /// The outcome.
        result: Result<(), NormalizedError>,
    },
    /// A Boss turn or a resumption: `Err` is a control-plane error (the method rejects).
    Run {
        /// The outcome.
        result: Result<RunResult, NormalizedError>,
    },
    /// `apply`: `Err` means it threw before acceptance (nothing recorded).
    Receipt {
        /// The outcome.
        result: Result<Receipt, NormalizedError>,
    },
    /// `dispose` finished: the session ended either way; `Err` is what failed on the way (a
    /// child's disposal, a sink), one error as itself or several aggregated (A47).
    Disposed {
        /// The teardown's outcome.
        result: Result<(), NormalizedError>,
    },
}

/// What the host does next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "next", rename_all = "camelCase")]
pub enum Next {
    /// Answer this with [`Runtime::answer`].
    Request {
        /// The request.
        request: Request,
    },
    /// The boundary is over.
    Settled {
        /// Its value.
        settled: Settled,
    },
}

/// One step of a boundary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Deliver these, in order.
    pub emitted: Vec<Emission>,
    /// Then this.
    pub next: Next,
}

/// Misuse of the lifecycle: thrown at once, with no effect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuntimeError {
    /// `init` or `restore` on a bound runtime.
    #[error("the runtime is already initialised")]
    AlreadyInitialised,
    /// A boundary before `init`.
    #[error("the runtime is not initialised")]
    NotInitialised,
    /// Anything after `dispose`.
    #[error("the runtime is disposed")]
    Disposed,
    /// Anything but `dispose` once a teardown has begun and before it ends (§1.4: `init`
    /// "throws if … disposing"; §1.11: `describe` throws "once disposal has begun").
    #[error("the runtime is disposing")]
    Disposing,
    /// A Boss turn, `apply`, a resumption or `describe` while `init` still waits (A52): `init`
    /// is no runtime turn, so not the one-boundary sentinel's.
    #[error("the runtime is initialising")]
    Initialising,
    /// A second boundary while one is active.
    #[error("another runtime turn is active")]
    Busy,
    /// `answer` with no request waiting.
    #[error("no request is waiting for an answer")]
    NothingWaiting,
    /// An answer of the wrong kind.
    #[error("the reply does not answer the waiting request")]
    WrongReply,
    /// A session identity that breaks the rules.
    #[error("bad session: {0}")]
    BadSession(String),
    /// Bad input to a method (the contract's `TypeError`).
    #[error("bad input: {0}")]
    BadInput(String),
    /// `resume_playbook_call` that does not match the pending call.
    #[error("no such pending call: {0}")]
    NoSuchCall(String),
    /// A Boss turn or `apply` while a nested call is pending: resume the call first (A21).
    #[error("a nested call is pending; deliver its result with resume_playbook_call first")]
    Suspended,
    /// A snapshot refused by `restore`.
    #[error(transparent)]
    Snapshot(#[from] SnapshotError),
    /// A sink failure reported after a boundary, surfacing at this one.
    #[error("an earlier emission failed: {}", .0.message)]
    Emission(NormalizedError),
}

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Init,
    Boss(String),
    Resume(Box<(SuspendedCall, PlaybookCallResult)>),
    Apply(String, String),
    Dispose,
}

#[derive(Debug, Clone)]
struct Boundary {
    kind: Kind,
    start: Core,
    at: u64,
    journal: Vec<(Reply, u64)>,
    waiting: Option<Request>,
    /// A `dispose` called while `init` waited, at this time: it tears down once `init` settles
    /// (A47).
    then_dispose: Option<u64>,
    /// The counters the latest play reached: its last trace sequence number (A49) and the
    /// last turn and call ids it gave (A53).
    reached: Sequences,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Life {
    Unbound,
    Bound,
    Disposed,
}

/// The agent-playbook runtime for one machine and one session.
#[derive(Debug, Clone)]
pub struct Runtime {
    machine: Machine,
    /// Built at the first play, so `new` + `restore` stays as cheap as before (A31).
    derived: OnceLock<Derived>,
    options: Options,
    session: Option<Session>,
    life: Life,
    core: Core,
    boundary: Option<Boundary>,
    sink_failure: Option<NormalizedError>,
    /// The session a failed `init` unbound: a fresh `init` of the same session continues its
    /// counters (its trace stays contiguous); another session starts its own at 1.
    unbound_from: Option<String>,
    /// How the one teardown settled: every later `dispose` settles the same (A47).
    disposal: Option<Result<(), NormalizedError>>,
}

impl Runtime {
    /// A runtime for `machine` (a machine the reader accepted). Nothing runs yet. A machine
    /// whose initial state works (an invoke or a parallel group) is refused: `init` only binds.
    pub fn new(machine: Machine, options: Options) -> Result<Self, RuntimeError> {
        let initial = machine
            .state(&machine.initial)
            .ok_or_else(|| RuntimeError::BadInput("the initial state does not exist".into()))?;
        if initial.invoke.is_some() || !initial.parallel.is_empty() || initial.is_final {
            return Err(RuntimeError::BadInput("the initial state must be a rest point".into()));
        }
        let core = Core::initial(&machine);
        Ok(Runtime {
            machine,
            derived: OnceLock::new(),
            options,
            session: None,
            life: Life::Unbound,
            core,
            boundary: None,
            sink_failure: None,
            unbound_from: None,
            disposal: None,
        })
    }

    /// The machine played.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The bound session.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The state descriptor now.
    pub fn state(&self) -> PlaybookState {
        self.core.descriptor(&self.machine)
    }

    /// The pending Boss questions.
    pub fn pending_questions(&self) -> Vec<PendingBossQuestion> {
        self.core.pending.iter().map(self::core::Question::public).collect()
    }

    /// The resume tokens, per player (the frame's `PlayerSessionStore.snapshot()`).
    pub fn player_tokens(&self) -> &BTreeMap<String, String> {
        &self.core.tokens
    }

    /// Replaces the frame's whole token view (the store's `restore`), for a host whose shared
    /// `PlayerSessionStore` changed outside this frame — a child frame that continued the same
    /// player, say (A16). Only between boundaries; blank tokens are dropped.
    pub fn restore_player_tokens(&mut self, tokens: BTreeMap<String, String>) -> Result<(), RuntimeError> {
        self.idle()?;
        self.core.tokens = tokens.into_iter().filter(|(_, t)| !t.trim().is_empty()).collect();
        Ok(())
    }

    /// The pending nested call, if any.
    pub fn pending_call(&self) -> Option<PendingCall> {
        self.core.suspended.as_ref().map(|s| PendingCall {
            call_id: s.call_id.clone(),
            playbook_id: s.playbook_id.clone(),
            child_session_id: s.child_session_id.clone(),
        })
    }

    /// Whether Boss text now would be sent as the machine's entry event rather than classified
    /// by the judge (§1.5 step 3; A18): a host asking for Boss text says so by its key (A26).
    pub fn entry_applies(&self) -> bool {
        self.machine.entry_event.is_some() && turn::entry_applies(&self.options, &self.core)
    }

    /// The last trace sequence number given, a boundary in flight included.
    pub fn trace_sequence(&self) -> u64 {
        self.boundary.as_ref().map_or(self.core.seq.trace, |b| b.reached.trace)
    }

    /// Numbers the trace on from `last`, a boundary in flight included (its next record is
    /// numbered `last + 1`): for a host that wrote another count of this session's trace than
    /// this runtime has given, having put it back by replaying its history from the start
    /// (A49), perhaps on an edited machine (H72). Nothing else changes.
    pub fn continue_trace(&mut self, last: u64) {
        let given = self.trace_sequence();
        let moved = |n: u64| (n + last).saturating_sub(given);
        self.core.seq.trace = moved(self.core.seq.trace);
        if let Some(b) = self.boundary.as_mut() {
            b.start.seq.trace = moved(b.start.seq.trace);
            b.reached.trace = last;
        }
    }

    /// The counters given so far, a boundary in flight included: the last trace sequence
    /// number and the last turn and call ids (A53).
    pub fn sequences(&self) -> Sequences {
        self.boundary.as_ref().map_or_else(|| self.core.seq.clone(), |b| b.reached.clone())
    }

    /// Moves the turn and call counters on so that none is below `floor`'s, a boundary in flight
    /// included (its next id is numbered past the floor): for a host that put this session back
    /// by replaying its history from the start, so that no turn or call id it was given before
    /// is given again (A53). The trace counter is [`continue_trace`](Self::continue_trace)'s.
    pub fn continue_ids(&mut self, floor: &Sequences) {
        let given = self.sequences();
        let behind = |floor: Option<u64>, given: Option<u64>| floor.unwrap_or(0).saturating_sub(given.unwrap_or(0));
        let turn = behind(Some(floor.turn), Some(given.turn));
        let judge = behind(Some(floor.judge_call), Some(given.judge_call));
        let player = behind(Some(floor.player_call), Some(given.player_call));
        let playbook = behind(Some(floor.playbook_call), Some(given.playbook_call));
        let captain = behind(floor.captain_call, given.captain_call);
        let apply = behind(floor.apply_call, given.apply_call);
        let shift = |seq: &mut Sequences| {
            seq.turn += turn;
            seq.judge_call += judge;
            seq.player_call += player;
            seq.playbook_call += playbook;
            if captain > 0 {
                seq.captain_call = Some(seq.captain_call.unwrap_or(0) + captain);
            }
            if apply > 0 {
                seq.apply_call = Some(seq.apply_call.unwrap_or(0) + apply);
            }
        };
        shift(&mut self.core.seq);
        if let Some(b) = self.boundary.as_mut() {
            shift(&mut b.start.seq);
            shift(&mut b.reached);
        }
    }

    /// Whether a boundary is active.
    pub fn is_busy(&self) -> bool {
        self.boundary.is_some()
    }

    /// Whether a teardown has begun and not ended: a `dispose` boundary, or a `dispose` that
    /// joined an `init` still waiting (A47).
    fn disposing(&self) -> bool {
        self.boundary.as_ref().is_some_and(|b| b.kind == Kind::Dispose || b.then_dispose.is_some())
    }

    fn idle(&self) -> Result<(), RuntimeError> {
        if self.disposing() {
            return Err(RuntimeError::Disposing);
        }
        match self.life {
            Life::Unbound => Err(RuntimeError::NotInitialised),
            Life::Disposed => Err(RuntimeError::Disposed),
            Life::Bound if self.boundary.as_ref().is_some_and(|b| b.kind == Kind::Init) => {
                Err(RuntimeError::Initialising)
            }
            Life::Bound if self.boundary.is_some() => Err(RuntimeError::Busy),
            Life::Bound => Ok(()),
        }
    }

    /// `init` and `restore` need an unused runtime (§1.4).
    pub(crate) fn unused(&self) -> Result<(), RuntimeError> {
        if self.disposing() {
            return Err(RuntimeError::Disposing);
        }
        match self.life {
            Life::Disposed => Err(RuntimeError::Disposed),
            Life::Bound => Err(RuntimeError::AlreadyInitialised),
            Life::Unbound => Ok(()),
        }
    }

    fn surface_sink_failure(&mut self) -> Result<(), RuntimeError> {
        match self.sink_failure.take() {
            Some(e) => Err(RuntimeError::Emission(e)),
            None => Ok(()),
        }
    }

    /// Binds the session and emits `session.started` with the initial descriptor; the step
    /// asks for a drain, and a sink failure there unbinds again (one best-effort
    /// `session.disposed`, the original error kept).
    pub fn init(&mut self, session: Session, at: u64) -> Result<Step, RuntimeError> {
        self.unused()?;
        session.check(&self.machine)?;
        let mut core = Core::initial(&self.machine);
        core.tokens = session.player_tokens.clone();
        // A fresh init of the session a failed one unbound continues its counters (and so its
        // trace); another session's trace starts at 1 (§1.7).
        if self.unbound_from.take().as_deref() == Some(session.session_id.as_str()) {
            core.seq = self.core.seq.clone();
        }
        self.core = core;
        self.session = Some(session);
        self.life = Life::Bound;
        Ok(self.begin(Kind::Init, at))
    }

    /// Instead of `init`: binds the session at a snapshot's state, emitting nothing (no
    /// `session.started`); the trace continues the snapshot's sequence.
    pub fn restore(&mut self, session: Session, snapshot: &Snapshot) -> Result<(), RuntimeError> {
        self.unused()?;
        session.check(&self.machine)?;
        let core = snapshot::validate(&self.machine, snapshot)?;
        self.core = core;
        self.session = Some(session);
        self.life = Life::Bound;
        Ok(())
    }

    /// One Boss turn with Boss's exact `text`.
    pub fn handle_boss_input(&mut self, text: &str, at: u64) -> Result<Step, RuntimeError> {
        self.idle()?;
        if self.core.suspended.is_some() {
            return Err(RuntimeError::Suspended);
        }
        self.surface_sink_failure()?;
        Ok(self.begin(Kind::Boss(text.to_owned()), at))
    }

    /// Delivers a suspended child's result.
    pub fn resume_playbook_call(
        &mut self,
        call_id: &str,
        result: PlaybookCallResult,
        at: u64,
    ) -> Result<Step, RuntimeError> {
        self.idle()?;
        let Some(call) = self.core.suspended.clone() else {
            return Err(RuntimeError::NoSuchCall(format!("`{call_id}`: no call is pending")));
        };
        if call.call_id != call_id {
            return Err(RuntimeError::NoSuchCall(format!("`{call_id}` (pending: `{}`)", call.call_id)));
        }
        if let PlaybookCallResult::Ok { child_session_id, .. } = &result {
            if child_session_id != &call.child_session_id {
                return Err(RuntimeError::NoSuchCall(format!(
                    "the result is of child `{child_session_id}`, not `{}`",
                    call.child_session_id
                )));
            }
        }
        self.surface_sink_failure()?;
        Ok(self.begin(Kind::Resume(Box::new((call, result))), at))
    }

    /// The control view (§1.11): no side effects; actions only at a safe capture point.
    pub fn describe(&self) -> Result<ControlView, RuntimeError> {
        self.idle()?;
        Ok(control::view(&self.machine, &self.core, self.is_safe()))
    }

    /// Takes an advertised action at most once per `key`. A key with a recorded receipt
    /// returns it verbatim in a step with no emissions.
    pub fn apply(&mut self, action_id: &str, key: &str, at: u64) -> Result<Step, RuntimeError> {
        if action_id.is_empty() || key.is_empty() {
            return Err(RuntimeError::BadInput("apply needs a non-empty actionId and key".into()));
        }
        self.idle()?;
        if let Some(r) = self.core.receipts.get(key) {
            let settled = Settled::Receipt { result: Ok(r.clone()) };
            return Ok(Step { emitted: Vec::new(), next: Next::Settled { settled } });
        }
        // A pending nested call is no boundary of this runtime's: `apply` is taken, and with
        // nothing advertised there it is rejected (§1.11 step 3; A21 revised).
        self.surface_sink_failure()?;
        Ok(self.begin(Kind::Apply(action_id.to_owned(), key.to_owned()), at))
    }

    /// Ends the session: disposes a pending child first, then emits `session.disposed` and
    /// asks for it to be drained. A runtime bound to no session (never initialised, or left
    /// unbound by a failed `init` or `restore`) is disposed at once with nothing to emit, and
    /// disposing a disposed runtime settles as its one teardown did (§1.4: "On failure the
    /// runtime is left unbound, so `dispose` still works"; later calls share the one
    /// teardown). A dispose while another is tearing down joins it: the step hands back the
    /// request that teardown waits on, and the one answer finishes it (A37). A dispose while
    /// `init` waits on its drain hands back that request too: once `init` settles, a started
    /// session is torn down in the same step, and a failed start (already cleaned up by `init`)
    /// leaves the runtime disposed with `init`'s error settled (A47). It throws only while a
    /// Boss turn, a resumption or an `apply` is active (A34).
    pub fn dispose(&mut self, at: u64) -> Result<Step, RuntimeError> {
        if let Some(b) = self.boundary.as_mut() {
            match (&b.kind, &b.waiting) {
                (Kind::Dispose, Some(request)) => {
                    return Ok(Step { emitted: Vec::new(), next: Next::Request { request: request.clone() } });
                }
                (Kind::Init, Some(request)) => {
                    b.then_dispose.get_or_insert(at);
                    return Ok(Step { emitted: Vec::new(), next: Next::Request { request: request.clone() } });
                }
                _ => {}
            }
        }
        let settled = |result: Result<(), NormalizedError>| Step {
            emitted: Vec::new(),
            next: Next::Settled { settled: Settled::Disposed { result } },
        };
        match self.life {
            Life::Disposed => Ok(settled(self.disposal.clone().unwrap_or(Ok(())))),
            Life::Unbound if self.boundary.is_none() => {
                self.life = Life::Disposed;
                self.disposal = Some(Ok(()));
                Ok(settled(Ok(())))
            }
            _ => {
                self.idle()?;
                Ok(self.begin(Kind::Dispose, at))
            }
        }
    }

    /// The snapshot, at a safe capture point only (§1.8). As the contract has it, the recorded
    /// `apply` receipts and the last Boss event are not in it: a runtime restored from it
    /// advertises no `retry:` and executes a key again.
    pub fn export_snapshot(&self) -> Option<Snapshot> {
        self.capture(false)
    }

    /// [`export_snapshot`](Self::export_snapshot) with the process-local state too (the
    /// recorded `apply` receipts and the last Boss event), beyond 6.0: for a host that carries
    /// one session across its own restarts and wants the same future from it, at-most-once
    /// included (A19). `restore` takes either.
    pub fn export_snapshot_with_process_state(&self) -> Option<Snapshot> {
        self.capture(true)
    }

    fn capture(&self, process_state: bool) -> Option<Snapshot> {
        (self.life == Life::Bound && self.boundary.is_none() && self.is_safe())
            .then(|| snapshot::capture(&self.machine, &self.core, process_state))
    }

    fn is_safe(&self) -> bool {
        control::safe(&self.machine, &self.core)
    }

    /// A sink failed after a boundary had published (the emission-failure channel): the
    /// error surfaces at the next boundary.
    pub fn report_sink_failure(&mut self, error: NormalizedError) {
        if self.sink_failure.is_none() {
            self.sink_failure = Some(error);
        }
    }

    /// Answers the waiting request, at the host's time `at`.
    pub fn answer(&mut self, reply: Reply, at: u64) -> Result<Step, RuntimeError> {
        let Some(b) = self.boundary.as_mut() else { return Err(RuntimeError::NothingWaiting) };
        let Some(waiting) = &b.waiting else { return Err(RuntimeError::NothingWaiting) };
        if !reply.fits(waiting) {
            return Err(RuntimeError::WrongReply);
        }
        b.journal.push((reply, at));
        b.waiting = None;
        Ok(self.play())
    }

    /// Plays a boundary begun with `first` to its end, asking `ports` for each reply and its
    /// time: the loop an adapter with bound ports runs (A24). Returns every emission, in
    /// order, and the settled value; a reply that does not fit stops it with `WrongReply`.
    pub fn complete(
        &mut self,
        first: Step,
        mut ports: impl FnMut(&Request) -> (Reply, u64),
    ) -> Result<(Vec<Emission>, Settled), RuntimeError> {
        let mut emitted = Vec::new();
        let mut step = first;
        loop {
            emitted.append(&mut step.emitted);
            match step.next {
                Next::Settled { settled } => return Ok((emitted, settled)),
                Next::Request { request } => {
                    let (reply, at) = ports(&request);
                    step = self.answer(reply, at)?;
                }
            }
        }
    }

    fn begin(&mut self, kind: Kind, at: u64) -> Step {
        self.boundary = Some(Boundary {
            kind,
            start: self.core.clone(),
            at,
            journal: Vec::new(),
            waiting: None,
            then_dispose: None,
            reached: self.core.seq.clone(),
        });
        self.play()
    }

    /// Plays the active boundary from its start against its journal.
    fn play(&mut self) -> Step {
        let Some(b) = self.boundary.as_ref() else {
            return Step { emitted: Vec::new(), next: Next::Settled { settled: Settled::Disposed { result: Ok(()) } } };
        };
        let fallback = Session::root("", "");
        let mut run = Run {
            m: &self.machine,
            derived: self.derived.get_or_init(|| Derived::new(&self.machine)),
            opts: &self.options,
            session: self.session.as_ref().unwrap_or(&fallback),
            core: b.start.clone(),
            io: Io::new(&b.journal, b.at),
            turn: None,
            control: None,
            event_sent: false,
            continuation: None,
        };
        let outcome = play_kind(&mut run, &b.kind);
        let Run { core, io, .. } = run;
        // The play emitted only what no earlier play handed out (A30).
        let emitted = io.out;
        match outcome {
            Err(Halt(request)) => {
                if let Some(b) = self.boundary.as_mut() {
                    b.waiting = Some(request.clone());
                    b.reached = core.seq.clone();
                }
                Step { emitted, next: Next::Request { request } }
            }
            Ok(settled) => {
                let then_dispose = self.boundary.take().and_then(|b| b.then_dispose);
                match &settled {
                    Settled::Init { result: Err(_) } => {
                        // Unbound again; the counters are kept, so a fresh init of the same
                        // session continues its trace.
                        self.life = Life::Unbound;
                        self.unbound_from = self.session.take().map(|session| session.session_id);
                        self.core = Core::initial(&self.machine);
                        self.core.seq = core.seq;
                    }
                    Settled::Disposed { result } => {
                        self.life = Life::Disposed;
                        self.disposal = Some(result.clone());
                        self.core = core;
                    }
                    _ => self.core = core,
                }
                match (then_dispose, &settled) {
                    // A dispose joined this init: a started session is torn down now, in the
                    // same step; a failed start left nothing bound to tear down (A47).
                    (Some(at), Settled::Init { result: Ok(()) }) => {
                        let mut step = self.begin(Kind::Dispose, at);
                        let mut all = emitted;
                        all.append(&mut step.emitted);
                        Step { emitted: all, next: step.next }
                    }
                    (Some(_), Settled::Init { result: Err(_) }) => {
                        self.life = Life::Disposed;
                        self.disposal = Some(Ok(()));
                        Step { emitted, next: Next::Settled { settled } }
                    }
                    _ => Step { emitted, next: Next::Settled { settled } },
                }
            }
        }
    }
}

fn play_kind(run: &mut Run<'_>, kind: &Kind) -> Result<Settled, Halt> {
    Ok(match kind {
        Kind::Init => {
            let payload = run.state_payload();
            run.trace("session.started", None, payload);
            match run.io.ask(Request::Drain)? {
                Reply::SinkFailed { error } => {
                    let payload = run.state_payload();
                    run.trace("session.disposed", None, payload);
                    Settled::Init { result: Err(error) }
                }
                _ => Settled::Init { result: Ok(()) },
            }
        }
        Kind::Boss(text) => Settled::Run { result: run.boss_turn(text)? },
        Kind::Resume(resume) => Settled::Run { result: run.resume_call(&resume.0, &resume.1)? },
        Kind::Apply(action, key) => Settled::Receipt { result: run.apply(action, key)? },
        Kind::Dispose => Settled::Disposed { result: run.dispose()? },
    })
}
