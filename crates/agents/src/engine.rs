//! [`AgentEngine`]: the sans-IO agent runtime behind the protocol's [`Engine`] trait, so the host
//! session, the worlds driver, `stagehand run` and the server hold an agent playbook like any
//! other document (decisions A26–A29 in `docs/design/agents.md`).
//!
//! - `start` binds the session (`init`); the engine answers the runtime's drains itself.
//! - At rest the engine asks for Boss's text as a `resolve` of one text key: the pending
//!   question's id when exactly one question is pending, the entry event's text field where the
//!   entry event applies, else `boss` (A26). The `supply` that answers it is one Boss turn, with
//!   the text verbatim. Each pending question is reported first as a `said` by its asker.
//! - Each port call the runtime requests is reported as `call` and waits for the host's
//!   `answer` with the typed [`PortAnswer`] (A27); the engine never does I/O.
//! - At rest the runtime's control actions (`retry:EVENT`, `jump:STATE`, labelled from state
//!   descriptions) are the engine's own [`actions`](Engine::actions), taken with `act` (A28).
//! - A final state reports its output as a `said` and `ended`; a recoverable failure, an abort
//!   or a control-plane error is refused with `run-failed`, the engine resting where it stopped.
//! - The snapshot is the runtime's schema-1 snapshot at rest (with its `apply` receipts and last
//!   Boss event, the process-local state §1.8 leaves out, A19), or
//!   the phase before the start or after the end; there is none while a call is outstanding
//!   (A29).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use stagehand_playbook::Fragment;
use stagehand_protocol::{
    Action, Answer, AnswerKind, Command, Engine, EngineError, OwnedEvent, PortAnswer, PortCall, RefusalReason, Waiting,
};

use crate::machine::Machine;
use crate::runtime::{
    Emission, Next, Options, Receipt, Reply, Request, RunResult, Runtime, RuntimeError, Sequences, Session, Settled,
    Snapshot, Step,
};

/// The key Boss text is asked under when no question is pending and no entry event applies.
pub const BOSS_KEY: &str = "boss";

/// Each answer moves a boundary on; a boundary asks at most a few dozen things.
const BOUND: usize = 10_000;

/// Where the engine stands between commands.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Nothing has started.
    NotStarted,
    /// At rest, waiting for Boss text under this key (or an action).
    Rest { key: String },
    /// A port call is outstanding.
    Call(PortCall),
    /// A final state; its output.
    Ended {
        /// The machine's output.
        output: Option<Value>,
        /// The final state it ended in (none from a snapshot written before it was kept).
        at: Option<String>,
    },
    /// The run cannot go on here (a nested call is pending, or the runtime was disposed).
    Stopped { why: String },
    /// The host disposed the session (H70); the state it ended in, once it had started.
    Disposed { at: Option<String> },
}

/// The engine's snapshot: where it stands, and the runtime's own snapshot at rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentSnapshot {
    /// `notStarted`, `rest`, `ended` or `disposed` (H70).
    pub phase: String,
    /// The runtime's schema-1 snapshot, at rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<Snapshot>,
    /// The machine's output, when it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// The final state it ended in, when it ended: a restored session reads back where it
    /// ended, not where a fresh runtime stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// How many actions the engine has applied (each under its own idempotency key).
    #[serde(default)]
    pub acts: u64,
    /// The last sequence number of the runtime's trace lent to the host: a restored engine
    /// numbers its records on from it, whatever it replays (A49). Absent when none was.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub traced: u64,
    /// The last turn and call ids the session was given (its `trace` is 0), where the runtime's
    /// own snapshot does not keep them (a session ended or disposed, or one a replay is about to
    /// start again): an undo of a restored session gives none of them again (A53). Absent at
    /// rest and when none was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<Sequences>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// An agent playbook played behind the protocol.
#[derive(Debug, Clone)]
pub struct AgentEngine {
    machine: Machine,
    options: Options,
    session_id: String,
    runtime: Runtime,
    phase: Phase,
    acts: u64,
    now: u64,
    log: Vec<String>,
    /// The runtime's trace events not yet drained ([`Engine::drain_trace`]).
    trace: Vec<crate::runtime::TraceEvent>,
    /// Where in `trace` the boundary begun last starts (A49).
    open_from: usize,
    /// How many records at the head of `trace` an abandoned boundary traced before the last
    /// restore (A49).
    abandoned: usize,
    /// The last sequence number of the runtime's trace lent to the host (A49).
    traced: u64,
    /// The highest turn and call ids any runtime of this session was given: a replay's fresh
    /// runtime numbers its ids past them (A53).
    counted: Sequences,
    fingerprint: String,
}

impl AgentEngine {
    /// An engine for `machine` (one the reader accepted) in the session `session_id`. A machine
    /// whose initial state works is refused, as [`Runtime::new`] refuses it.
    pub fn new(machine: Machine, options: Options, session_id: &str) -> Result<Self, RuntimeError> {
        let runtime = Runtime::new(machine.clone(), options.clone())?;
        let fingerprint = fingerprint(&machine);
        Ok(AgentEngine {
            machine,
            options,
            session_id: if session_id.is_empty() { "session".to_owned() } else { session_id.to_owned() },
            runtime,
            phase: Phase::NotStarted,
            acts: 0,
            now: 0,
            log: Vec::new(),
            trace: Vec::new(),
            open_from: 0,
            abandoned: 0,
            traced: 0,
            counted: Sequences::default(),
            fingerprint,
        })
    }

    /// The machine played.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    /// The runtime (its state descriptor, pending questions, tokens).
    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    /// The port call outstanding, if any.
    pub fn outstanding(&self) -> Option<&PortCall> {
        match &self.phase {
            Phase::Call(call) => Some(call),
            _ => None,
        }
    }

    /// The runtime's schema-2 trace events since the last call (or the last
    /// [`drain_trace`](Engine::drain_trace)), in order.
    pub fn take_trace(&mut self) -> Vec<crate::runtime::TraceEvent> {
        std::mem::take(&mut self.trace)
    }

    fn identity(&self) -> Session {
        Session::root(&self.session_id, &self.machine.id)
    }

    /// The runtime's state id now (its active states joined when it has no single one).
    fn state_here(&self) -> String {
        let state = self.runtime.state();
        state.state_id.unwrap_or_else(|| state.active_state_ids.join("+"))
    }

    fn fresh_runtime(&self) -> Result<Runtime, RuntimeError> {
        Runtime::new(self.machine.clone(), self.options.clone())
    }

    /// Delivers a step's emissions, answers drains, and stops at a call or the settled value.
    fn pump(&mut self, first: Result<Step, RuntimeError>, events: &mut Vec<OwnedEvent>) {
        let mut step = match first {
            Ok(step) => step,
            Err(error) => return refuse(events, RefusalReason::Misplaced, error.to_string()),
        };
        loop {
            for emission in std::mem::take(&mut step.emitted) {
                self.emitted(emission);
            }
            match step.next {
                Next::Request { request: Request::Drain } => match self.runtime.answer(Reply::Drained, self.now) {
                    Ok(next) => step = next,
                    Err(error) => return refuse(events, RefusalReason::Misplaced, error.to_string()),
                },
                Next::Request { request: Request::Call { call } } => {
                    events.push(OwnedEvent::Call { call: call.clone() });
                    self.phase = Phase::Call(call);
                    return;
                }
                Next::Settled { settled } => return self.settled(settled, events),
            }
        }
    }

    fn emitted(&mut self, emission: Emission) {
        match emission {
            Emission::Status { message, .. } => self.log.push(format!("◇ {message}")),
            Emission::Trace { event } => self.trace.push(event),
            _ => {}
        }
    }

    fn settled(&mut self, settled: Settled, events: &mut Vec<OwnedEvent>) {
        match settled {
            Settled::Init { result: Ok(()) } => self.rest(events),
            Settled::Init { result: Err(error) } => {
                self.phase = Phase::NotStarted;
                refuse(events, RefusalReason::CannotStart, error.message);
            }
            Settled::Run { result: Ok(run) } => self.ran(run, events),
            Settled::Run { result: Err(error) } => {
                refuse(events, RefusalReason::RunFailed, error.message);
                self.rest(events);
            }
            Settled::Receipt { result } => match result {
                Ok(Receipt::Executed { run }) => self.ran(*run, events),
                Ok(Receipt::Rejected { reason }) => {
                    refuse(events, RefusalReason::Misplaced, reason);
                    self.rest(events);
                }
                Ok(Receipt::Failed { error }) | Err(error) => {
                    refuse(events, RefusalReason::RunFailed, error.message);
                    self.rest(events);
                }
            },
            Settled::Disposed { .. } => self.phase = Phase::Stopped { why: "the session was disposed".to_owned() },
        }
    }

    /// What a run result reports.
    fn ran(&mut self, run: RunResult, events: &mut Vec<OwnedEvent>) {
        match run {
            RunResult::Terminal { output, .. } => {
                if let Some(text) = output.as_ref().and_then(output_text) {
                    events.push(said(None, &text));
                }
                events.push(OwnedEvent::Ended);
                let at = Some(self.state_here());
                self.phase = Phase::Ended { output, at };
            }
            RunResult::Failed { error, .. } | RunResult::Aborted { error, .. } => {
                let why = error.map_or_else(|| "the run failed".to_owned(), |e| e.message);
                refuse(events, RefusalReason::RunFailed, why);
                self.rest(events);
            }
            RunResult::Suspended { pending_call, .. } => {
                let why = format!(
                    "the nested playbook {} ({}) is pending; this host does not drive nested playbooks",
                    pending_call.playbook_id, pending_call.call_id
                );
                events.push(said(None, &why));
                self.phase = Phase::Stopped { why };
            }
            RunResult::NoAction { .. } | RunResult::Quiescent { .. } => self.rest(events),
        }
    }

    /// At rest: each pending question as said by its asker, then the request for Boss text.
    fn rest(&mut self, events: &mut Vec<OwnedEvent>) {
        let questions = self.runtime.pending_questions();
        for question in &questions {
            events.push(said(Some(&question.player), &question.question));
        }
        let key = match questions.as_slice() {
            [one] => one.question_id.clone(),
            [] => self.entry_key().unwrap_or_else(|| BOSS_KEY.to_owned()),
            _ => BOSS_KEY.to_owned(),
        };
        events.push(OwnedEvent::Resolve { questions: vec![(key.clone(), AnswerKind::Text)] });
        self.phase = Phase::Rest { key };
    }

    /// The entry event's text field, where the entry event applies now: the runtime's own
    /// rule (A18), so the key never says entry where the runtime classifies.
    fn entry_key(&self) -> Option<String> {
        let entry = self.machine.entry_event.as_ref()?;
        self.runtime.entry_applies().then(|| entry.text_field.clone())
    }

    /// Aborts a boundary still waiting on a port call: its pairs finish `aborted` and its turn
    /// settles `aborted` (H70, A49). What it traces is kept.
    fn abandon(&mut self) {
        let mut aborting = 0;
        while self.runtime.is_busy() && aborting < BOUND {
            aborting += 1;
            match self.runtime.answer(Reply::Abort, self.now) {
                Ok(step) => step.emitted.into_iter().for_each(|e| self.emitted(e)),
                Err(_) => break,
            }
        }
    }

    fn start(&mut self, anchor: Option<&str>, events: &mut Vec<OwnedEvent>) {
        if let Some(anchor) = anchor {
            let explanation = format!("an agent playbook starts only at its initial state, not at {anchor:?}");
            return refuse(events, RefusalReason::NoSuchAnchor, explanation);
        }
        let mut runtime = match self.fresh_runtime() {
            Ok(runtime) => runtime,
            Err(error) => return refuse(events, RefusalReason::CannotStart, error.to_string()),
        };
        let step = runtime.init(self.identity(), self.now);
        // The same session started again (an undo's or a restart's replay): its turn and call
        // ids go on from the highest given, so none names two calls (A53).
        self.counted = self.counted.highest(&self.runtime.sequences());
        runtime.continue_ids(&self.counted);
        self.open_from = self.trace.len();
        self.runtime = runtime;
        self.phase = Phase::NotStarted;
        self.pump(step, events);
    }
}

fn refuse(events: &mut Vec<OwnedEvent>, reason: RefusalReason, explanation: String) {
    events.push(OwnedEvent::Refused { reason, explanation });
}

fn said(speaker: Option<&str>, text: &str) -> OwnedEvent {
    OwnedEvent::Said { speaker: speaker.map(str::to_owned), speech: vec![Fragment::Text { text: text.into() }] }
}

/// A final output as words: a string as itself, an object's members a line each, anything
/// else as JSON.
fn output_text(output: &Value) -> Option<String> {
    match output {
        Value::Null => None,
        Value::String(text) => Some(text.clone()),
        Value::Object(members) if members.is_empty() => None,
        Value::Object(members) => {
            let mut out = String::new();
            for (name, value) in members {
                let value = match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                let _ = writeln!(out, "{name}: {value}");
            }
            Some(out.trim_end().to_owned())
        }
        other => Some(other.to_string()),
    }
}

/// The machine's fingerprint: SHA-256 of its JSON, lowercase hex.
fn fingerprint(machine: &Machine) -> String {
    let bytes = serde_json::to_vec(machine).unwrap_or_default();
    Sha256::digest(&bytes).iter().fold(String::with_capacity(64), |mut out, b| {
        let _ = write!(out, "{b:02x}");
        out
    })
}

/// The host's answer as the runtime's reply.
fn reply_of(answer: PortAnswer) -> Reply {
    match answer {
        PortAnswer::Player { result } => Reply::Player { result },
        PortAnswer::Captain { result } => Reply::Captain { result },
        PortAnswer::Judge { text } => Reply::Judge { text },
        PortAnswer::Playbook { start } => Reply::Playbook { start },
        PortAnswer::Script { exit_code } => Reply::Script { exit_code },
        PortAnswer::Disposed => Reply::Drained,
        PortAnswer::Aborted => Reply::Abort,
        PortAnswer::Threw { error } => Reply::Threw { error },
    }
}

fn answer_words(answer: &Answer<'_>) -> String {
    match answer {
        Answer::Text(text) => text.to_string(),
        Answer::Truth(truth) => truth.to_string(),
        Answer::Number(number) => number.to_string(),
    }
}

impl Engine for AgentEngine {
    type Snapshot = AgentSnapshot;

    /// Sets the host's time (Unix milliseconds) that stamps the runtime's trace from now on;
    /// the engine reads no clock (0 until set).
    fn set_now(&mut self, now: u64) {
        self.now = now;
    }

    /// Ends the runtime's session (H70): a Boss turn or action still waiting on a port call is
    /// aborted first (its pairs finished, its turn settled `aborted`), then the runtime is
    /// disposed, this engine answering the drains and a pending child's disposal itself (it
    /// drives no children, A29). What the runtime traced is kept for
    /// [`drain_trace`](Engine::drain_trace); a failure of the teardown is the runtime's to
    /// report and ends the session all the same.
    fn dispose(&mut self) {
        let at = match &self.phase {
            Phase::NotStarted => None,
            Phase::Disposed { at } => at.clone(),
            _ => Some(self.state_id()),
        };
        self.abandon();
        let mut step = self.runtime.dispose(self.now);
        for _ in 0..BOUND {
            let Ok(Step { emitted, next }) = step else { break };
            emitted.into_iter().for_each(|e| self.emitted(e));
            let Next::Request { request } = next else { break };
            let reply = match request {
                Request::Drain | Request::Call { call: PortCall::DisposeChild { .. } } => Reply::Drained,
                Request::Call { .. } => Reply::Abort,
            };
            step = self.runtime.answer(reply, self.now);
        }
        self.phase = Phase::Disposed { at };
    }

    fn take(&mut self, command: Command<'_>, events: &mut Vec<OwnedEvent>) {
        match (&self.phase, command) {
            (_, Command::Start { anchor }) => self.start(anchor.as_deref(), events),
            (Phase::Rest { .. }, Command::Supply(answers)) => {
                let Some((_, answer)) = answers.iter().next() else {
                    return refuse(events, RefusalReason::UnansweredKey, "supply Boss's text as one answer".into());
                };
                let text = answer_words(answer);
                self.open_from = self.trace.len();
                let step = self.runtime.handle_boss_input(&text, self.now);
                self.pump(step, events);
            }
            (Phase::Rest { .. }, Command::Act { action }) => {
                self.acts += 1;
                let key = format!("engine-act-{}", self.acts);
                self.open_from = self.trace.len();
                let step = self.runtime.apply(&action, &key, self.now);
                self.pump(step, events);
            }
            (Phase::Call(call), Command::Answer(answer)) => {
                if !answer.fits(call) {
                    let explanation = format!("that answer does not answer {}", call.describe());
                    return refuse(events, RefusalReason::Misplaced, explanation);
                }
                let step = self.runtime.answer(reply_of(answer.into_owned()), self.now);
                self.pump(step, events);
            }
            (Phase::Ended { .. }, Command::Next) => {
                refuse(events, RefusalReason::AlreadyEnded, "the machine reached a final state".into());
            }
            (Phase::NotStarted, Command::Next) => {
                refuse(events, RefusalReason::NotStarted, "next arrived before start".into());
            }
            (_, command) => {
                let explanation = format!("{} cannot be taken here: {}", command.name(), self.describe());
                refuse(events, RefusalReason::Misplaced, explanation);
            }
        }
    }

    fn waiting(&self) -> Waiting {
        match &self.phase {
            Phase::NotStarted => Waiting::Start,
            Phase::Rest { .. } => Waiting::Answers,
            Phase::Call(_) => Waiting::Effect,
            Phase::Ended { .. } => Waiting::Ended,
            Phase::Stopped { .. } | Phase::Disposed { .. } => Waiting::Stopped,
        }
    }

    fn snapshot(&mut self) -> Result<AgentSnapshot, EngineError> {
        let (phase, runtime, output) = match &self.phase {
            Phase::NotStarted => ("notStarted", None, None),
            Phase::Rest { .. } => {
                let snapshot = self
                    .runtime
                    .export_snapshot_with_process_state()
                    .ok_or_else(|| EngineError::new("the agent runtime is not at a safe point"))?;
                ("rest", Some(snapshot), None)
            }
            Phase::Ended { output, .. } => ("ended", None, output.clone()),
            Phase::Call(call) => {
                return Err(EngineError::new(format!(
                    "not at a safe point: {} is outstanding (answer it first)",
                    call.describe()
                )))
            }
            Phase::Stopped { why } => return Err(EngineError::new(format!("not at a safe point: {why}"))),
            Phase::Disposed { .. } => ("disposed", None, None),
        };
        let at = match &self.phase {
            Phase::Ended { at, .. } | Phase::Disposed { at } => at.clone(),
            _ => None,
        };
        let traced = self.traced.max(self.runtime.trace_sequence());
        // At rest the runtime's own snapshot keeps its ids, which are the highest given (A53).
        let counted = match runtime {
            Some(_) => None,
            None => Some(Sequences { trace: 0, ..self.counted.highest(&self.runtime.sequences()) })
                .filter(|ids| *ids != Sequences::default()),
        };
        Ok(AgentSnapshot { phase: phase.to_owned(), runtime, output, at, acts: self.acts, traced, counted })
    }

    fn restore(&mut self, snapshot: &AgentSnapshot) -> Result<(), EngineError> {
        let mut runtime = self.fresh_runtime().map_err(|e| EngineError::new(e.to_string()))?;
        let phase = match (snapshot.phase.as_str(), &snapshot.runtime) {
            ("notStarted", None) => Phase::NotStarted,
            ("ended", None) => {
                // The runtime's session has not ended yet: bound again where it ended, its
                // dispose ends it as in process (A50). An older snapshot, which kept neither
                // where it ended nor how far its trace went, leaves it unbound (nothing to end).
                if let (Some(at), true) = (&snapshot.at, snapshot.traced > 0) {
                    runtime
                        .restore_ended(self.identity(), at, snapshot.traced)
                        .map_err(|e| EngineError::new(e.to_string()))?;
                }
                Phase::Ended { output: snapshot.output.clone(), at: snapshot.at.clone() }
            }
            ("disposed", None) => {
                // The runtime's session ended with the host's; a fresh runtime disposed at once
                // stands for it (it emits nothing).
                let _ = runtime.dispose(0);
                Phase::Disposed { at: snapshot.at.clone() }
            }
            ("rest", Some(at)) => {
                runtime.restore(self.identity(), at).map_err(|e| EngineError::new(e.to_string()))?;
                Phase::Rest { key: String::new() }
            }
            (phase, _) => return Err(EngineError::new(format!("an agent snapshot cannot be in the phase {phase:?}"))),
        };
        // A boundary left waiting on a call is abandoned: its records (its pairs finished
        // `aborted`) are kept to be written, as new, with what the host replays (A49).
        self.abandon();
        // Whatever is restored, the ids given so far stay given (A53).
        self.counted = self.counted.highest(&self.runtime.sequences());
        if let Some(counted) = &snapshot.counted {
            self.counted = self.counted.highest(counted);
        }
        self.runtime = runtime;
        self.phase = phase;
        self.acts = snapshot.acts;
        // Restoring an earlier snapshot (the start an undo replays from) takes back nothing
        // already lent (A49).
        let lent = snapshot.runtime.as_ref().map_or(0, |r| r.sequences.trace);
        self.traced = self.traced.max(snapshot.traced).max(lent);
        self.abandoned = self.trace.len();
        self.open_from = self.abandoned;
        if let Phase::Rest { .. } = self.phase {
            // The key is derived again from the restored state, as `rest` would report it.
            let mut ignored = Vec::new();
            self.rest(&mut ignored);
        }
        Ok(())
    }

    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    fn state_id(&self) -> String {
        match &self.phase {
            Phase::NotStarted => "not-started".to_owned(),
            Phase::Ended { at: Some(at), .. } | Phase::Disposed { at: Some(at) } => at.clone(),
            Phase::Disposed { at: None } => "not-started".to_owned(),
            _ => self.state_here(),
        }
    }

    /// A pending question's words as its player asked them (CONTRACT.md §1.9's `question`):
    /// the view's question under its id, not the key's name (A54).
    fn question_text(&self, key: &str) -> Option<String> {
        if !matches!(self.phase, Phase::Rest { .. }) {
            return None;
        }
        let questions = self.runtime.pending_questions();
        questions.into_iter().find(|q| q.question_id == key).map(|q| q.question)
    }

    fn describe(&self) -> String {
        let id = self.state_id();
        let description = self.machine.state(&id).map(|s| s.description.trim()).filter(|d| !d.is_empty());
        let mut out = match &self.phase {
            Phase::NotStarted => format!("The agent playbook {} has not started.", self.machine.id),
            Phase::Ended { .. } => format!("The agent playbook {} ended at {id}.", self.machine.id),
            Phase::Call(call) => format!("At {id}, waiting on {}.", call.describe()),
            Phase::Stopped { why } => format!("At {id}: {why}."),
            Phase::Disposed { .. } => format!("At {id}: the session was disposed."),
            Phase::Rest { .. } => format!("At {id}."),
        };
        if let (Some(description), false) = (description, matches!(self.phase, Phase::NotStarted)) {
            let _ = write!(out, " {description}");
        }
        if let Phase::Rest { .. } = self.phase {
            for question in self.runtime.pending_questions() {
                let _ = write!(out, " {} asks: {}", question.player, question.question);
            }
        }
        out
    }

    /// Boss is the person: a run waiting on Boss's text is at rest (H60).
    fn asks_the_person(&self) -> bool {
        true
    }

    fn actions(&self) -> Vec<Action> {
        if !matches!(self.phase, Phase::Rest { .. }) {
            return Vec::new();
        }
        match self.runtime.describe() {
            Ok(view) => view.actions.into_iter().map(|a| Action::new(a.id, a.label)).collect(),
            Err(_) => Vec::new(),
        }
    }

    fn take_log(&mut self) -> Vec<String> {
        std::mem::take(&mut self.log)
    }

    /// Each schema-2 event the runtime emitted, typed as the runtime spells it (§1.7's sixteen
    /// types), its payload the whole event: the runtime's own session, sequence, turn and call
    /// ids beside its payload (decision A32).
    fn drain_trace(&mut self, sink: &mut dyn FnMut(&str, Value)) {
        self.open_from = 0;
        self.abandoned = 0;
        for event in self.trace.drain(..) {
            self.traced = self.traced.max(event.sequence);
            let kind = event.trace_type.clone();
            match serde_json::to_value(event) {
                Ok(payload) => sink(&kind, payload),
                Err(error) => sink(&kind, Value::String(format!("unserialisable: {error}"))),
            }
        }
    }

    /// Takes how far the old session's trace and ids went from its snapshot (its `traced`, its
    /// runtime's counters, its `counted`), for a replay onto an edited machine (H72, A53).
    fn continue_after(&mut self, old: &AgentSnapshot) {
        let runtime = old.runtime.as_ref().map(|r| r.counters());
        self.traced = self.traced.max(old.traced).max(runtime.as_ref().map_or(0, |s| s.trace));
        for given in runtime.iter().chain(&old.counted) {
            self.counted = self.counted.highest(&Sequences { trace: 0, ..given.clone() });
        }
    }

    /// Drops what the runtime traced while the host put this engine back, and numbers the
    /// runtime's trace on from the last record lent before (A49): a replay's records are not
    /// new, but a boundary it left open (a call outstanding again after an undo) keeps its
    /// records, numbered on, for the host to write again, so each of its starts has a finish.
    fn forget_trace(&mut self) {
        let mut kept = match self.phase {
            Phase::Call(_) => self.trace.split_off(self.open_from.max(self.abandoned).min(self.trace.len())),
            _ => Vec::new(),
        };
        self.trace.truncate(self.abandoned);
        let abandoned = std::mem::take(&mut self.trace);
        kept.splice(0..0, abandoned);
        self.open_from = 0;
        self.abandoned = 0;
        let mut last = self.traced;
        for mut event in kept {
            last += 1;
            event.sequence = last;
            self.trace.push(event);
        }
        self.runtime.continue_trace(last);
    }
}
