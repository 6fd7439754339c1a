//! The contract's value types (CONTRACT.md §1.2, §1.6, §1.9, §1.10, §1.11; seed 004). Each JSON
//! spelling is owned here: camelCase keys, absent optional members omitted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use stagehand_protocol::port::{CallStatus, NormalizedError, PlaybookCallResult, PlaybookCallStart, PlayerResult};

/// The lifecycle status of a machine (`PlaybookState.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MachineStatus {
    /// Running.
    Active,
    /// In a final state.
    Done,
    /// Crashed (never in this runtime: errors route to `failed`).
    Error,
    /// Disposed.
    Stopped,
}

/// The normalised state descriptor (`PlaybookState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaybookState {
    /// The state value: the state id, or for a parallel group `{group: {member: phase}}`.
    pub value: Value,
    /// Every active state id.
    pub active_state_ids: Vec<String>,
    /// The tags of the active states (`playbook.busy`, …), sorted, each once.
    pub tags: Vec<String>,
    /// The lifecycle status.
    pub status: MachineStatus,
    /// No active state is busy.
    pub quiescent: bool,
    /// The one active state id, when exactly one is active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_id: Option<String>,
}

/// A pending Boss question as the public sees it (6.0 projection).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingBossQuestion {
    /// The id of the leaf that asked.
    pub question_id: String,
    /// The player, or `Captain`.
    pub player: String,
    /// The question, verbatim.
    pub question: String,
    /// The asking leaf's source item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_item: Option<String>,
}

/// A nested call waiting on its child (`PlaybookPendingCall`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PendingCall {
    /// The call's id, `playbook-<n>`.
    pub call_id: String,
    /// The child playbook.
    pub playbook_id: String,
    /// The child's session.
    pub child_session_id: String,
}

/// The result of one Boss turn or resumption (`PlaybookRunResult`, §1.6).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case", rename_all_fields = "camelCase", deny_unknown_fields)]
pub enum RunResult {
    /// No event was sent.
    NoAction {
        /// The state.
        state: PlaybookState,
    },
    /// Parked or idle, not failed.
    Quiescent {
        /// The state.
        state: PlaybookState,
    },
    /// In the recoverable `failed` state.
    Failed {
        /// The state.
        state: PlaybookState,
        /// `lastError`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<NormalizedError>,
    },
    /// The boundary's signal ended the work.
    Aborted {
        /// The state.
        state: PlaybookState,
        /// The abort.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<NormalizedError>,
    },
    /// A final state.
    Terminal {
        /// The state.
        state: PlaybookState,
        /// The machine's output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<Value>,
    },
    /// One nested call is pending.
    Suspended {
        /// The state.
        state: PlaybookState,
        /// The call.
        pending_call: PendingCall,
    },
}

impl RunResult {
    /// The outcome's name (`no-action`, `quiescent`, …).
    pub fn outcome(&self) -> &'static str {
        match self {
            RunResult::NoAction { .. } => "no-action",
            RunResult::Quiescent { .. } => "quiescent",
            RunResult::Failed { .. } => "failed",
            RunResult::Aborted { .. } => "aborted",
            RunResult::Terminal { .. } => "terminal",
            RunResult::Suspended { .. } => "suspended",
        }
    }

    /// The state the result reports.
    pub fn state(&self) -> &PlaybookState {
        match self {
            RunResult::NoAction { state }
            | RunResult::Quiescent { state }
            | RunResult::Failed { state, .. }
            | RunResult::Aborted { state, .. }
            | RunResult::Terminal { state, .. }
            | RunResult::Suspended { state, .. } => state,
        }
    }
}

/// One advertised control action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControlAction {
    /// `retry:<EVENT>` or `jump:<stateId>`.
    pub id: String,
    /// Written from state descriptions.
    pub label: String,
}

/// What `describe` returns (`PlaybookControlView`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ControlView {
    /// The state.
    pub state: PlaybookState,
    /// The document's description of the single current state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_description: Option<String>,
    /// The `controlContextFields` projection; absent when none is named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// The pending questions.
    pub pending_questions: Vec<PendingBossQuestion>,
    /// `lastError`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<NormalizedError>,
    /// The actions `apply` takes now.
    pub actions: Vec<ControlAction>,
}

/// What `apply` returns (`PlaybookControlReceipt`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "disposition", rename_all = "camelCase", deny_unknown_fields)]
pub enum Receipt {
    /// Refused before any effect; not recorded.
    Rejected {
        /// Why.
        reason: String,
    },
    /// Done; the run's result.
    Executed {
        /// The result.
        run: Box<RunResult>,
    },
    /// Failed after effects may exist.
    Failed {
        /// Why.
        error: NormalizedError,
    },
}
