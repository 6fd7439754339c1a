//! The `script` invoke: `sh -c` of the machine's verbatim command, with a time limit and a
//! clean environment (CONTRACT.md §1.5; PT6). Exit status 0 selects the first guard (`ok`),
//! anything else — a nonzero status, a signal, the time limit — the second (`failed`).

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::exec::run_failure;
use crate::port::{Abort, PortError, PortErrorKind};
use crate::process::{self, describe_status, Ending, ShellRun};

/// A machine's `script` invoke: `{command, timeoutMs}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptRequest {
    /// The command, run verbatim with `sh -c`.
    pub command: String,
    /// The time limit in milliseconds.
    pub timeout_ms: u64,
}

/// Where and how scripts run: the host's choices, not the machine's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScriptOptions {
    /// The working directory (the contract's `scriptCwd`); the host's own when absent.
    pub cwd: Option<PathBuf>,
    /// Host variables passed on besides the inherited allow-list.
    pub pass_env: Vec<String>,
    /// The most each output stream keeps, in bytes; [`crate::DEFAULT_MAX_OUTPUT`] when zero.
    pub max_output: usize,
}

/// Which of a script's two guards its run selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ScriptGuard {
    /// Exit status 0: the first guard.
    Ok,
    /// Anything else: the second guard.
    Failed,
}

impl ScriptGuard {
    /// The guard's name in the machine document (`ok`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ScriptGuard::Ok => "ok",
            ScriptGuard::Failed => "failed",
        }
    }
}

/// How a script run ended: the guard it selects, with what it printed (for the
/// `playbook.script` telemetry and a status line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScriptOutcome {
    /// The guard selected.
    pub guard: ScriptGuard,
    /// The exit code, when the shell exited by itself with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Whether the time limit killed the script.
    #[serde(default)]
    pub timed_out: bool,
    /// A one-line account: `exit status 0`, `killed by signal 9`, `timed out after 500 ms`.
    pub status: String,
    /// Standard output (lossily decoded, at most the output limit).
    pub stdout: String,
    /// Standard error (lossily decoded, at most the output limit).
    pub stderr: String,
}

/// Runs a script to its end or its time limit. An `Err` is a script that could not be run at
/// all (`spawn`, `output` — control-plane) or was aborted (`aborted`); every run that ended
/// is an outcome.
pub fn run_script(request: &ScriptRequest, options: &ScriptOptions, abort: &Abort) -> Result<ScriptOutcome, PortError> {
    let max_output = if options.max_output == 0 { process::DEFAULT_MAX_OUTPUT } else { options.max_output };
    let run = ShellRun {
        command: &request.command,
        stdin: &[],
        env: process::clean_env(&options.pass_env, &[]),
        cwd: options.cwd.clone(),
        timeout: Duration::from_millis(request.timeout_ms),
        max_output,
    };
    let label = format!("script `{}`", request.command);
    let finished = process::run(run, abort).map_err(|failure| run_failure(&label, failure))?;
    let stdout = String::from_utf8_lossy(&finished.stdout.bytes).into_owned();
    let stderr = String::from_utf8_lossy(&finished.stderr.bytes).into_owned();
    let (guard, exit_code, timed_out, status) = match finished.ending {
        Ending::Aborted => return Err(PortError::new(PortErrorKind::Aborted, format!("{label}: aborted"))),
        Ending::TimedOut => (ScriptGuard::Failed, None, true, format!("timed out after {} ms", request.timeout_ms)),
        Ending::Exited(status) => {
            let guard = if status.success() { ScriptGuard::Ok } else { ScriptGuard::Failed };
            (guard, status.code(), false, describe_status(status))
        }
    };
    Ok(ScriptOutcome { guard, exit_code, timed_out, status, stdout, stderr })
}
