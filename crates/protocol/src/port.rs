//! The port vocabulary of agent playbooks (the `@sublang/playbook` 6.0 contract, §1.2): what
//! an engine asks its host to call ([`PortCall`]: a player, the Captain, the judge, a nested
//! playbook, a script) and what the host answers ([`PortAnswer`]), with the contract's value
//! types they carry ([`PlayerResult`], [`NormalizedError`], [`PlaybookCallStart`]).
//!
//! An engine reports a call as [`Event::Call`](crate::Event::Call) and waits for the host's
//! [`Command::Answer`](crate::Command::Answer), the way a `perform` waits for `done` (decision
//! H45 in `docs/design/host-contract.md`). This module owns these values' JSON spelling
//! (camelCase keys, absent optional members omitted); the agent runtime re-exports them.

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

/// The judge's three purposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum JudgePurpose {
    /// Turning Boss text into an event.
    BossInputClassification,
    /// Turning a player's output into a guard.
    PlayerOutputAdjudication,
    /// Turning the Captain's output into a guard.
    CaptainOutputAdjudication,
}

impl JudgePurpose {
    /// The purpose as the trace spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            JudgePurpose::BossInputClassification => "boss-input-classification",
            JudgePurpose::PlayerOutputAdjudication => "player-output-adjudication",
            JudgePurpose::CaptainOutputAdjudication => "captain-output-adjudication",
        }
    }
}

/// One call the runtime asks its host to make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "port", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum PortCall {
    /// `callPlayer`: answer with [`PortAnswer::Player`].
    Player {
        /// `player-<n>`.
        call_id: String,
        /// The resolved player id (the player's name, lower-cased).
        player_id: String,
        /// The composed prompt.
        prompt: String,
        /// The token to resume with; `None` starts a fresh conversation (`resume: false`).
        resume: Option<String>,
    },
    /// `callCaptain`: answer with [`PortAnswer::Captain`]. Always `resume: false`.
    Captain {
        /// `captain-<n>`.
        call_id: String,
        /// The composed prompt.
        prompt: String,
        /// Whether the Boss sees the call.
        visibility: Visibility,
    },
    /// `callJudge`: answer with [`PortAnswer::Judge`].
    Judge {
        /// `judge-<n>`.
        call_id: String,
        /// Why the judge is asked.
        purpose: JudgePurpose,
        /// The prompt.
        prompt: String,
    },
    /// `callPlaybook`: answer with [`PortAnswer::Playbook`].
    Playbook {
        /// `playbook-<n>`.
        call_id: String,
        /// The child playbook.
        playbook_id: String,
        /// The text handed to it.
        text: String,
    },
    /// Run a script with `sh -c`: answer with [`PortAnswer::Script`].
    Script {
        /// The state that runs it.
        state_id: String,
        /// The verbatim command.
        command: String,
        /// Its time limit.
        timeout_ms: u64,
    },
    /// Dispose the pending child of a nested call (its `session.disposed` comes first):
    /// answer with [`PortAnswer::Disposed`].
    DisposeChild {
        /// The call.
        call_id: String,
        /// The child's session.
        child_session_id: String,
    },
}

/// Whether the Boss sees a Captain call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Visibility {
    /// Shown to the Boss (workflow calls).
    #[default]
    Visible,
    /// Not shown.
    Hidden,
}

/// The host's answer to a [`PortCall`]: the port's typed result, or why there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "answer", rename_all = "camelCase", rename_all_fields = "camelCase", deny_unknown_fields)]
pub enum PortAnswer {
    /// A player's result (answers [`PortCall::Player`]).
    Player {
        /// The result.
        result: PlayerResult,
    },
    /// The Captain's result (answers [`PortCall::Captain`]; a `resumeToken` is ignored).
    Captain {
        /// The result.
        result: PlayerResult,
    },
    /// The judge's raw reply (answers [`PortCall::Judge`]).
    Judge {
        /// The text, verbatim.
        text: String,
    },
    /// How a nested call started (answers [`PortCall::Playbook`]).
    Playbook {
        /// The start.
        start: PlaybookCallStart,
    },
    /// How a script ended (answers [`PortCall::Script`]): its exit status, `None` when it
    /// could not run to an exit (a signal, its time limit).
    Script {
        /// The exit status.
        exit_code: Option<i32>,
    },
    /// The pending child was disposed (answers [`PortCall::DisposeChild`]).
    Disposed,
    /// The call was aborted (the contract's signal): answers any call.
    Aborted,
    /// The port failed without a result (it threw): a control-plane error; answers any call.
    Threw {
        /// Why.
        error: NormalizedError,
    },
}

impl PortAnswer {
    /// Whether this answer answers `call`.
    pub fn fits(&self, call: &PortCall) -> bool {
        matches!(
            (self, call),
            (PortAnswer::Aborted | PortAnswer::Threw { .. }, _)
                | (PortAnswer::Player { .. }, PortCall::Player { .. })
                | (PortAnswer::Captain { .. }, PortCall::Captain { .. })
                | (PortAnswer::Judge { .. }, PortCall::Judge { .. })
                | (PortAnswer::Playbook { .. }, PortCall::Playbook { .. })
                | (PortAnswer::Script { .. }, PortCall::Script { .. })
                | (PortAnswer::Disposed, PortCall::DisposeChild { .. })
        )
    }
}

impl PortCall {
    /// The call's id (`player-<n>`, `judge-<n>`, …; a script's is its state's id).
    pub fn call_id(&self) -> &str {
        match self {
            PortCall::Player { call_id, .. }
            | PortCall::Captain { call_id, .. }
            | PortCall::Judge { call_id, .. }
            | PortCall::Playbook { call_id, .. }
            | PortCall::DisposeChild { call_id, .. } => call_id,
            PortCall::Script { state_id, .. } => state_id,
        }
    }

    /// The call in words for a person: `writer: player-1`, `$ make test`, …
    pub fn describe(&self) -> String {
        match self {
            PortCall::Player { call_id, player_id, .. } => format!("the player {player_id} ({call_id})"),
            PortCall::Captain { call_id, .. } => format!("the Captain ({call_id})"),
            PortCall::Judge { call_id, purpose, .. } => format!("the judge for {} ({call_id})", purpose.as_str()),
            PortCall::Playbook { call_id, playbook_id, .. } => format!("the playbook {playbook_id} ({call_id})"),
            PortCall::Script { command, .. } => format!("the script `{command}`"),
            PortCall::DisposeChild { child_session_id, .. } => format!("disposing the child {child_session_id}"),
        }
    }
}
