//! The contract's value types (CONTRACT.md §1.2, §1.6, §1.9, §1.10, §1.11; seed 004). Each JSON
//! spelling is owned here: camelCase keys, absent optional members omitted.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a port call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CallStatus {
    /// It did its work.
    Ok,
    /// It was cancelled.
    Aborted,
    /// It failed.
    Error,
}

/// What a player port returns (`PlayerResult`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlayerResult {
    /// How the call ended.
    pub status: CallStatus,
    /// The token that resumes the player's conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_token: Option<String>,
    /// The player's final text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_text: Option<String>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl PlayerResult {
    /// An `ok` result with this final text and no token.
    pub fn ok(text: impl Into<String>) -> Self {
        PlayerResult { status: CallStatus::Ok, resume_token: None, final_text: Some(text.into()), error: None }
    }
}

/// A normalised error (`{name, message, stack?}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NormalizedError {
    /// The error's kind, `Error` by default.
    pub name: String,
    /// What went wrong.
    pub message: String,
    /// Where, if the host knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

impl NormalizedError {
    /// An `Error` with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self::named("Error", message)
    }

    /// An error of this name and message.
    pub fn named(name: &str, message: impl Into<String>) -> Self {
        NormalizedError { name: name.to_owned(), message: message.into(), stack: None }
    }

    /// The error an abort of the boundary's signal stands for.
    pub fn abort() -> Self {
        Self::named("AbortError", "the operation was aborted")
    }

    /// Normalises any JSON value (§1.10): an object with a string `message` keeps its fields,
    /// a string is the message of an `Error`, anything else is written out as the message.
    pub fn from_value(value: &Value) -> Self {
        match value {
            Value::String(s) => Self::new(s.clone()),
            Value::Object(o) if o.get("message").is_some_and(Value::is_string) => NormalizedError {
                name: o.get("name").and_then(Value::as_str).unwrap_or("Error").to_owned(),
                message: o["message"].as_str().unwrap_or_default().to_owned(),
                stack: o.get("stack").and_then(Value::as_str).map(str::to_owned),
            },
            other => Self::new(other.to_string()),
        }
    }

    /// The error as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

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

/// What a settled child call returns (`PlaybookCallResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "camelCase", deny_unknown_fields)]
pub enum PlaybookCallResult {
    /// The child ended well.
    #[serde(rename_all = "camelCase")]
    Ok {
        /// The child's session.
        child_session_id: String,
        /// The child's final state.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<Value>,
        /// The child's output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<Value>,
    },
    /// The child was aborted.
    Aborted {
        /// Why.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<NormalizedError>,
    },
    /// The child failed.
    Error {
        /// Why.
        error: NormalizedError,
    },
}

/// How a nested call starts (`PlaybookCallStart`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase", deny_unknown_fields)]
pub enum PlaybookCallStart {
    /// The child finished at once.
    Settled {
        /// Its result.
        result: PlaybookCallResult,
    },
    /// The child parked; its result comes through `resume_playbook_call`.
    #[serde(rename_all = "camelCase")]
    Suspended {
        /// The child's session.
        child_session_id: String,
    },
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
