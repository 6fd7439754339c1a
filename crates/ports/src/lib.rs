//! The host side of agent playbooks: ports bound to real agents, and the script runner.
//!
//! The agent runtime (`stagehand-agents`) is sans-IO: it *requests* each player, Captain and
//! judge call and each script run, and takes the answer back as data. This crate does that
//! I/O for a host such as `stagehand run`:
//!
//! - [`PortSpec`] / [`Binding`] / [`LineupSpec`] read the binding flags
//!   (`--player NAME=exec:COMMAND`, `--player NAME=openai:MODEL@URL`, `--captain SPEC`,
//!   `--judge SPEC`) with clear errors ([`BindingError`]);
//! - [`Port`] is the blocking call: a [`PortRequest`] (who, prompt, optional resume token,
//!   time limit) in, a [`PortReply`] (final text, optional new resume token) or a
//!   [`PortError`] out, whose [`FailureClass`] places it in the contract's error taxonomy
//!   and [`FromOutcome::from_outcome`] turns into the runtime's own `PlayerResult` ([`CallResult`]);
//! - [`ExecPort`] runs a command with the prompt on standard input; [`OpenAiPort`] speaks the
//!   OpenAI-compatible chat-completions API; [`Lineup`] routes a request to its port;
//! - [`run_script`] runs a machine's `script` invoke;
//! - [`Ports`] answers the runtime's port calls (`Event::Call`) with all of these.
//!
//! ```
//! use stagehand_ports::{Abort, LineupSpec, PortRequest, Who};
//!
//! let players = ["writer=exec:printf 'draft of: '; cat".to_owned()];
//! let lineup = LineupSpec::parse(&players, None, None)?.open(None);
//! let request = PortRequest::new(Who::player("writer"), "a poem").with_timeout_ms(60_000);
//! let reply = lineup.call(&request, &Abort::new())?;
//! assert_eq!(reply.final_text, "draft of: a poem");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Decisions are in `docs/design/ports.md` (PT1, PT2, …).

mod answer;
mod binding;
mod exec;
mod lineup;
mod openai;
mod port;
mod process;
mod script;

pub use answer::Ports;
pub use binding::{Binding, BindingError, PortSpec};
pub use exec::{split_resume_token, ExecPort, ENV_PLAYER, ENV_RESUME_TOKEN, ENV_ROLE, RESUME_TOKEN_MARKER};
pub use lineup::{Lineup, LineupSpec};
pub use openai::{ApiKey, OpenAiPort, Retry, ENV_API_KEY, ENV_API_KEY_FALLBACK};
pub use port::{
    Abort, CallResult, CallStatus, FailureClass, FromOutcome, NormalizedError, PlayerResult, Port, PortError,
    PortErrorKind, PortReply, PortRequest, Who, DEFAULT_TIMEOUT_MS,
};
pub use process::{DEFAULT_MAX_OUTPUT, INHERITED_ENV};
pub use script::{run_script, ScriptGuard, ScriptOptions, ScriptOutcome, ScriptRequest};
