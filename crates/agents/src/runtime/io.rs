//! The sans-IO boundary: what the runtime asks of its host ([`Request`], [`PortCall`]), what it
//! tells it ([`Emission`], [`TraceEvent`]) and what the host answers ([`Reply`]).
//!
//! A public boundary (a Boss turn, a resumption, an `apply`, `init`, `dispose`) is played from
//! its start against the journal of replies received so far (A15 and A30 in docs/design/agents.md):
//! the first request the journal cannot answer halts the play, and only the emissions not yet
//! handed out are returned. The play is deterministic, so every replay asks the same things in
//! the same order; while it replays answers it already had, it counts its emissions instead of
//! building them (A30).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::wire::{NormalizedError, PlaybookCallStart, PlayerResult};
pub use stagehand_protocol::port::{JudgePurpose, PortAnswer, PortCall};

/// What the runtime waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "camelCase")]
pub enum Request {
    /// A port call.
    Call {
        /// The call.
        call: PortCall,
    },
    /// The emissions so far must be delivered before the runtime goes on: answer
    /// [`Reply::Drained`], or [`Reply::SinkFailed`] / [`Reply::Abort`].
    Drain,
}

/// The host's answer to a [`Request`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "reply", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Reply {
    /// A player's result.
    Player {
        /// The result.
        result: PlayerResult,
    },
    /// The Captain's result (its `resumeToken`, if any, is ignored).
    Captain {
        /// The result.
        result: PlayerResult,
    },
    /// The judge's raw reply.
    Judge {
        /// The text.
        text: String,
    },
    /// How a nested call started.
    Playbook {
        /// The start.
        start: PlaybookCallStart,
    },
    /// How a script ended: its exit status, `None` when it could not run or timed out.
    Script {
        /// The exit status.
        exit_code: Option<i32>,
    },
    /// The emissions were delivered (or the child was disposed).
    Drained,
    /// The boundary's signal aborted (from anywhere: the host, a trace sink, the call).
    Abort,
    /// A sink refused the emissions of this step: the last `*.started` among them gets its
    /// one synthetic `*.finished` and the error is latched as a control-plane error.
    SinkFailed {
        /// Why.
        error: NormalizedError,
    },
    /// The port threw (no result at all): a control-plane error.
    Threw {
        /// Why.
        error: NormalizedError,
    },
}

impl Reply {
    /// Whether this reply answers `request`.
    pub fn fits(&self, request: &Request) -> bool {
        matches!(
            (self, request),
            (Reply::Abort | Reply::SinkFailed { .. }, _)
                | (Reply::Drained, Request::Drain)
                | (Reply::Threw { .. }, Request::Call { .. })
                | (Reply::Drained, Request::Call { call: PortCall::DisposeChild { .. } })
                | (Reply::Player { .. }, Request::Call { call: PortCall::Player { .. } })
                | (Reply::Captain { .. }, Request::Call { call: PortCall::Captain { .. } })
                | (Reply::Judge { .. }, Request::Call { call: PortCall::Judge { .. } })
                | (Reply::Playbook { .. }, Request::Call { call: PortCall::Playbook { .. } })
                | (Reply::Script { .. }, Request::Call { call: PortCall::Script { .. } })
        )
    }
}

/// One trace event (schema 2, §1.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TraceEvent {
    /// Always 2.
    pub schema_version: u32,
    /// The session.
    pub session_id: String,
    /// The playbook.
    pub playbook_id: String,
    /// The root session.
    pub root_session_id: String,
    /// The parent session of a child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_session_id: Option<String>,
    /// The parent's call that started a child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_call_id: Option<String>,
    /// 0 for a root.
    pub depth: u32,
    /// Contiguous from 1 within the session.
    pub sequence: u64,
    /// Unix milliseconds, as the host gave them.
    pub timestamp: u64,
    /// One of [`TRACE_TYPES`].
    #[serde(rename = "type")]
    pub trace_type: String,
    /// The Boss turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<u64>,
    /// The paired call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// What happened.
    pub payload: Value,
}

/// The sixteen trace types of schema 2.
pub const TRACE_TYPES: [&str; 16] = [
    "session.started",
    "boss.input.received",
    "judge.call.started",
    "judge.call.finished",
    "player.call.started",
    "player.call.finished",
    "captain.call.started",
    "captain.call.finished",
    "playbook.call.started",
    "playbook.call.finished",
    "apply.started",
    "apply.finished",
    "fsm.transition",
    "status.emitted",
    "boss.input.settled",
    "session.disposed",
];

/// A `PlayerSessionStore` operation, reported in order so a host store can mirror the
/// runtime's continuity (and a test can check the order of operations).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum Continuity {
    /// `select(player)` gave this token (`None`: `false`).
    Select {
        /// The player id.
        player: String,
        /// The token.
        token: Option<String>,
    },
    /// `update(player, token)`: replaced, or cleared when `None`.
    Update {
        /// The player id.
        player: String,
        /// The token.
        token: Option<String>,
    },
}

/// One thing the runtime tells its host, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "emit", rename_all = "camelCase")]
pub enum Emission {
    /// A trace event (the host's `emitTelemetry` topic `playbook.trace`).
    Trace {
        /// The event.
        event: TraceEvent,
    },
    /// A human status line (`emitStatus`), after its `status.emitted` trace.
    Status {
        /// The line.
        message: String,
        /// Its structured data (`emitStatus(message, data)`), e.g. `{lastError}` at a failure.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// Structured telemetry (`playbook.fsm.state`, `playbook.script`).
    Telemetry {
        /// The topic.
        topic: String,
        /// The payload.
        payload: Value,
    },
    /// A continuity operation.
    Continuity {
        /// The operation.
        op: Continuity,
    },
}

/// Why a play stopped before the boundary settled.
#[derive(Debug)]
pub(crate) struct Halt(pub Request);

/// The journal a boundary is played against, and what the play emits.
pub(crate) struct Io<'j> {
    journal: &'j [(Reply, u64)],
    cursor: usize,
    /// The time of the latest answer consumed (or of the boundary's start).
    pub now: u64,
    /// What this play emitted past the answers it replayed: the emissions not yet handed out.
    pub out: Vec<Emission>,
    /// The boundary's signal aborted.
    pub aborted: bool,
}

impl<'j> Io<'j> {
    pub fn new(journal: &'j [(Reply, u64)], started_at: u64) -> Self {
        Io { journal, cursor: 0, now: started_at, out: Vec::new(), aborted: false }
    }

    /// The answer to `request`, or a halt asking for it.
    pub fn ask(&mut self, request: Request) -> Result<Reply, Halt> {
        match self.journal.get(self.cursor) {
            Some((reply, at)) => {
                self.cursor += 1;
                self.now = *at;
                if matches!(reply, Reply::Abort) {
                    self.aborted = true;
                }
                Ok(reply.clone())
            }
            None => Err(Halt(request)),
        }
    }

    /// Whether this play is still replaying answers it already had: everything it emits now
    /// was handed out by an earlier play (A30), so it is counted, not built.
    pub fn replaying(&self) -> bool {
        self.cursor < self.journal.len()
    }

    /// Emits `emission`, unless the play is replaying (it was handed out already).
    pub fn emit(&mut self, emission: Emission) {
        if !self.replaying() {
            if self.out.capacity() == 0 {
                // A Boss turn emits about twenty; growing from empty would move them several times.
                self.out.reserve(16);
            }
            self.out.push(emission);
        }
    }

    /// [`Io::emit`] with the emission built only when it leaves.
    pub fn emit_with(&mut self, emission: impl FnOnce() -> Emission) {
        if !self.replaying() {
            self.emit(emission());
        }
    }

    /// Asks for a port call.
    pub fn call(&mut self, call: PortCall) -> Result<Reply, Halt> {
        self.ask(Request::Call { call })
    }
}

/// `map` with `key: value` added, for building payloads in order.
pub(crate) fn with(mut map: Map<String, Value>, key: &str, value: impl Into<Value>) -> Map<String, Value> {
    map.insert(key.to_owned(), value.into());
    map
}
