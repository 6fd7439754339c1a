//! The blocking port API: a request in, a reply or a typed error out (docs/design/ports.md PT2).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
pub use stagehand_agents::runtime::{CallStatus, NormalizedError, PlayerResult};

/// How long a call may take when the request names no other limit: ten minutes, the order of
/// a real agent's turn.
pub const DEFAULT_TIMEOUT_MS: u64 = 10 * 60 * 1000;

/// Who a call is for: the contract's three agent ports (`callPlayer`, `callCaptain`,
/// `callJudge`). JSON: `{"role": "player", "name": "writer"}`, `{"role": "captain"}`,
/// `{"role": "judge"}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "camelCase", deny_unknown_fields)]
pub enum Who {
    /// A named player (delegated work).
    Player {
        /// The player's name, as the machine's `player` invoke spells it.
        name: String,
    },
    /// The Captain (direct work).
    Captain,
    /// The hidden judge (classification and adjudication).
    Judge,
}

impl Who {
    /// A player by name.
    pub fn player(name: impl Into<String>) -> Who {
        Who::Player { name: name.into() }
    }

    /// The role's name: `player`, `captain` or `judge`.
    pub fn role(&self) -> &'static str {
        match self {
            Who::Player { .. } => "player",
            Who::Captain => "captain",
            Who::Judge => "judge",
        }
    }
}

impl fmt::Display for Who {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Who::Player { name } => write!(f, "player {name}"),
            Who::Captain => f.write_str("the Captain"),
            Who::Judge => f.write_str("the judge"),
        }
    }
}

/// One call of an agent port. Plain data, so the runtime's requests map onto it one to one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PortRequest {
    /// Who is called.
    pub who: Who,
    /// The composed prompt, exactly as the runtime wrote it.
    pub prompt: String,
    /// The conversation to resume; absent starts a fresh one (the contract's `resume: false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<String>,
    /// The longest the call may take, in milliseconds.
    pub timeout_ms: u64,
}

impl PortRequest {
    /// A fresh call with the default time limit.
    pub fn new(who: Who, prompt: impl Into<String>) -> PortRequest {
        PortRequest { who, prompt: prompt.into(), resume: None, timeout_ms: DEFAULT_TIMEOUT_MS }
    }

    /// The same call, resuming the conversation `token` names.
    pub fn resuming(mut self, token: impl Into<String>) -> PortRequest {
        self.resume = Some(token.into());
        self
    }

    /// The same call with another time limit.
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> PortRequest {
        self.timeout_ms = timeout_ms;
        self
    }
}

/// A port's answer to a call that completed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PortReply {
    /// The agent's final text (possibly empty: the runtime re-asks once, §1.5).
    pub final_text: String,
    /// The token that resumes this conversation, when the agent gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume_token: Option<String>,
}

/// What went wrong in a call, closed and spelled once ([`PortErrorKind::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PortErrorKind {
    /// The command exited with a nonzero status or was killed by a signal.
    Exit,
    /// The call ran past its time limit (the command was killed).
    Timeout,
    /// The host aborted the call.
    Aborted,
    /// The command could not be started (no `sh`, a missing working directory).
    Spawn,
    /// The command's output could not be used (not UTF-8, too large, held open).
    Output,
    /// The server answered with an HTTP error status (after any retries).
    Http,
    /// The server could not be reached or the connection failed (after any retries).
    Transport,
    /// The server's answer was not a chat completion with text.
    Malformed,
    /// The port is not usable as configured (e.g. a resume token for a port that gives none).
    Config,
}

impl PortErrorKind {
    /// Every kind, in declaration order.
    pub const ALL: [PortErrorKind; 9] = [
        PortErrorKind::Exit,
        PortErrorKind::Timeout,
        PortErrorKind::Aborted,
        PortErrorKind::Spawn,
        PortErrorKind::Output,
        PortErrorKind::Http,
        PortErrorKind::Transport,
        PortErrorKind::Malformed,
        PortErrorKind::Config,
    ];

    /// The kind's spelling (kebab-case, as serialised).
    pub fn as_str(self) -> &'static str {
        match self {
            PortErrorKind::Exit => "exit",
            PortErrorKind::Timeout => "timeout",
            PortErrorKind::Aborted => "aborted",
            PortErrorKind::Spawn => "spawn",
            PortErrorKind::Output => "output",
            PortErrorKind::Http => "http",
            PortErrorKind::Transport => "transport",
            PortErrorKind::Malformed => "malformed",
            PortErrorKind::Config => "config",
        }
    }

    /// The error's class in the contract's taxonomy (§1.10; PT3).
    pub fn class(self) -> FailureClass {
        match self {
            PortErrorKind::Exit | PortErrorKind::Timeout | PortErrorKind::Http | PortErrorKind::Transport => {
                FailureClass::Recoverable
            }
            PortErrorKind::Aborted => FailureClass::Abort,
            PortErrorKind::Spawn | PortErrorKind::Output | PortErrorKind::Malformed | PortErrorKind::Config => {
                FailureClass::ControlPlane
            }
        }
    }

    /// The `name` of the contract's `NormalizedError` for this kind.
    pub fn error_name(self) -> &'static str {
        match self {
            PortErrorKind::Exit => "ExitError",
            PortErrorKind::Timeout => "TimeoutError",
            PortErrorKind::Aborted => "AbortError",
            PortErrorKind::Spawn => "SpawnError",
            PortErrorKind::Output => "OutputError",
            PortErrorKind::Http => "HttpError",
            PortErrorKind::Transport => "TransportError",
            PortErrorKind::Malformed => "MalformedReplyError",
            PortErrorKind::Config => "ConfigError",
        }
    }
}

impl fmt::Display for PortErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The contract's failure classes (§1.10), as far as a port decides them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// The port resolved with `status: error`: the machine moves to `failed`.
    Recoverable,
    /// The port "threw": the public method rejects with the error.
    ControlPlane,
    /// The call was aborted: the outcome is `aborted`.
    Abort,
}

/// A failed call: a kind, a message for people (never a secret), and — for a command that
/// printed one before failing — a resume token (the 6.x rule keeps such a call resumable).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PortError {
    kind: PortErrorKind,
    message: String,
    resume_token: Option<String>,
}

impl PortError {
    /// An error of `kind` with `message`.
    pub fn new(kind: PortErrorKind, message: impl Into<String>) -> PortError {
        PortError { kind, message: message.into(), resume_token: None }
    }

    /// The same error, carrying the resume token the agent printed before it failed.
    pub fn with_resume_token(mut self, token: Option<String>) -> PortError {
        self.resume_token = token;
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> PortErrorKind {
        self.kind
    }

    /// The message, for people.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The resume token the failed call still gave, if any.
    pub fn resume_token(&self) -> Option<&str> {
        self.resume_token.as_deref()
    }

    /// The error's class in the contract's taxonomy.
    pub fn class(&self) -> FailureClass {
        self.kind.class()
    }

    /// The contract's `NormalizedError` for this error (ports have no stack to give).
    pub fn normalized(&self) -> NormalizedError {
        NormalizedError::named(self.kind.error_name(), self.message.clone())
    }
}

/// The contract's `PlayerResult` (and, without a token, `CaptainResult`), spelled once by the
/// agent runtime that takes it: `{status, resumeToken?, finalText?, error?}`.
pub type CallResult = PlayerResult;

/// Turns a call's outcome into the contract's result (implemented for [`CallResult`], which the
/// agent runtime owns).
pub trait FromOutcome: Sized {
    /// The contract's result for a call's outcome: a reply is `ok`; a recoverable error is
    /// `error` and an abort `aborted` (both keep a token the agent gave); a control-plane
    /// error is returned as `Err`, for the runtime to reject with (PT3).
    fn from_outcome(outcome: Result<PortReply, PortError>) -> Result<Self, PortError>;
}

impl FromOutcome for CallResult {
    fn from_outcome(outcome: Result<PortReply, PortError>) -> Result<CallResult, PortError> {
        match outcome {
            Ok(reply) => Ok(CallResult {
                status: CallStatus::Ok,
                resume_token: reply.resume_token,
                final_text: Some(reply.final_text),
                error: None,
            }),
            Err(e) => {
                let status = match e.class() {
                    FailureClass::Recoverable => CallStatus::Error,
                    FailureClass::Abort => CallStatus::Aborted,
                    FailureClass::ControlPlane => return Err(e),
                };
                Ok(CallResult {
                    status,
                    resume_token: e.resume_token.clone(),
                    final_text: None,
                    error: Some(e.message),
                })
            }
        }
    }
}

/// The host's abort signal for one or more calls (the contract's `AbortSignal`): cheap to
/// clone, shared between the host and the call, and checked by the port while it waits.
#[derive(Debug, Clone, Default)]
pub struct Abort(Arc<AtomicBool>);

impl Abort {
    /// A signal not yet raised.
    pub fn new() -> Abort {
        Abort::default()
    }

    /// Raises the signal: calls under way stop as soon as they notice (a command is killed).
    pub fn abort(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether the signal has been raised.
    pub fn is_aborted(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A bound agent: the host calls it, blocking, once per port call.
///
/// Implementations are `Send + Sync` so a host may serve a parallel group's players from
/// several threads.
pub trait Port: Send + Sync + fmt::Debug {
    /// Makes one call. Returns the agent's reply, or an error whose [`PortError::class`]
    /// says how the runtime treats it.
    fn call(&self, request: &PortRequest, abort: &Abort) -> Result<PortReply, PortError>;
}

impl<P: Port + ?Sized> Port for Box<P> {
    fn call(&self, request: &PortRequest, abort: &Abort) -> Result<PortReply, PortError> {
        (**self).call(request, abort)
    }
}
