//! The `exec:` port: an agent that is a shell command (PT4).
//!
//! The command runs as `sh -c COMMAND` in a clean environment ([`INHERITED_ENV`] plus the
//! names the binding passes on). The prompt is its standard input; its standard output is the
//! final text. It is told who it plays and which conversation to resume through
//! [`ENV_ROLE`], [`ENV_PLAYER`] and [`ENV_RESUME_TOKEN`]. It may give a resume token by
//! printing, as the last line of its standard output, [`RESUME_TOKEN_MARKER`] followed by the
//! token; that line is not part of the final text. A nonzero exit is an `exit` error carrying
//! standard error; running past the time limit kills the command's whole process group.
//!
//! [`INHERITED_ENV`]: crate::INHERITED_ENV

use std::path::PathBuf;
use std::time::Duration;

use crate::port::{Abort, Port, PortError, PortErrorKind, PortReply, PortRequest, Who};
use crate::process::{self, describe_status, stderr_excerpt, Ending, RunFailure, ShellRun};

/// The marker that starts the resume-token line: `stagehand-resume-token: TOKEN`, the last
/// line of standard output.
pub const RESUME_TOKEN_MARKER: &str = "stagehand-resume-token:";
/// The variable naming the caller's role: `player`, `captain` or `judge`.
pub const ENV_ROLE: &str = "STAGEHAND_ROLE";
/// The variable naming the player (set for players only).
pub const ENV_PLAYER: &str = "STAGEHAND_PLAYER";
/// The variable holding the token of the conversation to resume (absent for a fresh one).
pub const ENV_RESUME_TOKEN: &str = "STAGEHAND_RESUME_TOKEN";

/// An agent that is a shell command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecPort {
    command: String,
    pass_env: Vec<String>,
    cwd: Option<PathBuf>,
    max_output: usize,
}

impl ExecPort {
    /// A port running `command` with `sh -c`, in the host's working directory.
    pub fn new(command: impl Into<String>) -> ExecPort {
        ExecPort { command: command.into(), pass_env: Vec::new(), cwd: None, max_output: process::DEFAULT_MAX_OUTPUT }
    }

    /// The same port, also passing these host variables on (when set).
    pub fn with_env(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> ExecPort {
        self.pass_env.extend(names.into_iter().map(Into::into));
        self
    }

    /// The same port, running the command in `cwd`.
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> ExecPort {
        self.cwd = Some(cwd.into());
        self
    }

    /// The same port with another limit on each output stream, in bytes.
    pub fn with_max_output(mut self, bytes: usize) -> ExecPort {
        self.max_output = bytes;
        self
    }

    /// The command.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The host variables passed on besides the inherited allow-list.
    pub fn pass_env(&self) -> &[String] {
        &self.pass_env
    }
}

impl Port for ExecPort {
    fn call(&self, request: &PortRequest, abort: &Abort) -> Result<PortReply, PortError> {
        let mut own = vec![(ENV_ROLE, request.who.role())];
        if let Who::Player { name } = &request.who {
            own.push((ENV_PLAYER, name.as_str()));
        }
        if let Some(token) = &request.resume {
            own.push((ENV_RESUME_TOKEN, token.as_str()));
        }
        let run = ShellRun {
            command: &self.command,
            stdin: request.prompt.as_bytes(),
            env: process::clean_env(&self.pass_env, &own),
            cwd: self.cwd.clone(),
            timeout: Duration::from_millis(request.timeout_ms),
            max_output: self.max_output,
        };
        let who = &request.who;
        let finished = process::run(run, abort).map_err(|failure| run_failure(who, failure))?;
        let status = match finished.ending {
            Ending::TimedOut => {
                return Err(PortError::new(
                    PortErrorKind::Timeout,
                    format!("{who}: the command ran past its {} ms limit and was killed", request.timeout_ms),
                ))
            }
            Ending::Aborted => {
                return Err(PortError::new(PortErrorKind::Aborted, format!("{who}: the call was aborted")))
            }
            Ending::Exited(status) => status,
        };
        if finished.stdout.overflowed {
            return Err(PortError::new(
                PortErrorKind::Output,
                format!("{who}: the command printed more than {} bytes", self.max_output),
            ));
        }
        let stdout = String::from_utf8(finished.stdout.bytes).map_err(|_| {
            PortError::new(PortErrorKind::Output, format!("{who}: the command's standard output is not UTF-8"))
        })?;
        let (final_text, resume_token) = split_resume_token(&stdout);
        if status.success() {
            return Ok(PortReply { final_text, resume_token });
        }
        let stderr = stderr_excerpt(&finished.stderr.bytes);
        let mut message = format!("{who}: the command failed with {}", describe_status(status));
        if !stderr.is_empty() {
            message.push_str(": ");
            message.push_str(&stderr);
        }
        Err(PortError::new(PortErrorKind::Exit, message).with_resume_token(resume_token))
    }
}

pub(crate) fn run_failure(who: &dyn std::fmt::Display, failure: RunFailure) -> PortError {
    match failure {
        RunFailure::Spawn(e) => PortError::new(PortErrorKind::Spawn, format!("{who}: could not start `sh -c`: {e}")),
        RunFailure::Wait(e) => {
            PortError::new(PortErrorKind::Spawn, format!("{who}: could not wait on the command: {e}"))
        }
        RunFailure::HeldOpen => PortError::new(
            PortErrorKind::Output,
            format!("{who}: the command's output stayed open after it ended (a process outside its group holds it)"),
        ),
    }
}

/// Splits standard output into the final text and the resume token of its last line (PT4):
/// trailing line ends are dropped; when the last line starts with [`RESUME_TOKEN_MARKER`],
/// the rest of it, trimmed, is the token (an empty one counts as none) and the line goes.
/// The final text is what is left, with trailing whitespace trimmed.
pub fn split_resume_token(stdout: &str) -> (String, Option<String>) {
    let body = stdout.trim_end_matches(['\n', '\r']);
    let (before, last) = match body.rfind('\n') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => ("", body),
    };
    match last.strip_prefix(RESUME_TOKEN_MARKER) {
        Some(token) => {
            let token = token.trim();
            let token = (!token.is_empty()).then(|| token.to_owned());
            (before.trim_end().to_owned(), token)
        }
        None => (body.trim_end().to_owned(), None),
    }
}
