//! Running `sh -c COMMAND` with a clean environment, standard input, a time limit, an abort
//! signal and bounded output: what the `exec:` port and the script runner share (PT4, PT5).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use wait_timeout::ChildExt;

use crate::port::Abort;

/// The variables a child inherits from the host when they are set (PT5): enough to find
/// programs, a home, the locale and a temporary folder; nothing else leaks through.
pub const INHERITED_ENV: [&str; 10] =
    ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TMPDIR", "TZ", "USER", "LOGNAME"];

/// The most a command may print on one stream: 16 MiB. Past it the call fails.
pub const DEFAULT_MAX_OUTPUT: usize = 16 * 1024 * 1024;

/// How often a wait looks at the abort signal.
const ABORT_POLL: Duration = Duration::from_millis(25);

/// How long the host waits for the output streams to close once the shell has gone and its
/// process group has been killed.
const DRAIN_GRACE: Duration = Duration::from_secs(5);

/// The environment a child gets: the inherited allow-list, the names the binding passes on,
/// then the port's own variables.
pub(crate) fn clean_env(pass: &[String], own: &[(&str, &str)]) -> BTreeMap<OsString, OsString> {
    let mut env = BTreeMap::new();
    for name in INHERITED_ENV.iter().copied().chain(pass.iter().map(String::as_str)) {
        if let Some(value) = std::env::var_os(name) {
            env.insert(OsString::from(name), value);
        }
    }
    for (name, value) in own {
        env.insert(OsString::from(name), OsString::from(value));
    }
    env
}

/// One run of `sh -c`.
pub(crate) struct ShellRun<'a> {
    pub command: &'a str,
    pub stdin: &'a [u8],
    pub env: BTreeMap<OsString, OsString>,
    pub cwd: Option<PathBuf>,
    pub timeout: Duration,
    pub max_output: usize,
}

/// How a run ended.
pub(crate) enum Ending {
    /// The shell exited by itself.
    Exited(ExitStatus),
    /// The time limit passed; the process group was killed.
    TimedOut,
    /// The abort signal was raised; the process group was killed.
    Aborted,
}

/// What one output stream held.
pub(crate) struct Captured {
    pub bytes: Vec<u8>,
    /// More than the limit was printed (the rest was read and dropped).
    pub overflowed: bool,
}

/// A finished run: how it ended and what it printed.
pub(crate) struct Finished {
    pub ending: Ending,
    pub stdout: Captured,
    pub stderr: Captured,
}

/// Why a run produced nothing usable.
pub(crate) enum RunFailure {
    /// The shell could not be started.
    Spawn(std::io::Error),
    /// Waiting on the child failed.
    Wait(std::io::Error),
    /// The output streams stayed open after the process group was killed.
    HeldOpen,
}

/// Runs the command to its end, its time limit, or the abort signal.
pub(crate) fn run(spec: ShellRun<'_>, abort: &Abort) -> Result<Finished, RunFailure> {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(spec.command)
        .env_clear()
        .envs(&spec.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(cwd) = &spec.cwd {
        command.current_dir(cwd);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so a timeout ends everything the command started.
        command.process_group(0);
    }
    let mut child = command.spawn().map_err(RunFailure::Spawn)?;

    // Feed standard input on its own thread: a command may print before it reads, and a large
    // prompt would otherwise fill the pipe while the command's output fills another.
    if let Some(mut stdin) = child.stdin.take() {
        let input = spec.stdin.to_vec();
        thread::spawn(move || {
            // A command that does not read its input closes the pipe: that is its right.
            let _ = stdin.write_all(&input);
        });
    }
    let (tx, rx) = mpsc::channel();
    for (stream, reader) in [
        (0u8, child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>)),
        (1u8, child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>)),
    ] {
        if let Some(reader) = reader {
            let tx = tx.clone();
            let limit = spec.max_output;
            thread::spawn(move || {
                let _ = tx.send((stream, capture(reader, limit)));
            });
        }
    }
    drop(tx);

    let ending = wait(&mut child, spec.timeout, abort);
    // The call is over: whatever the command left running in its group goes too, so the
    // output streams close (PT4).
    kill_group(&mut child);
    let _ = child.wait();
    let ending = ending?;

    let mut stdout = None;
    let mut stderr = None;
    let deadline = Instant::now() + DRAIN_GRACE;
    while stdout.is_none() || stderr.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((0, captured)) => stdout = Some(captured),
            Ok((_, captured)) => stderr = Some(captured),
            Err(_) => return Err(RunFailure::HeldOpen),
        }
    }
    match (stdout, stderr) {
        (Some(stdout), Some(stderr)) => Ok(Finished { ending, stdout, stderr }),
        _ => Err(RunFailure::HeldOpen),
    }
}

fn capture(mut reader: Box<dyn Read + Send>, limit: usize) -> Captured {
    let mut bytes = Vec::new();
    let mut overflowed = false;
    let mut buffer = [0u8; 8192];
    loop {
        match reader.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = limit.saturating_sub(bytes.len());
                if n > room {
                    overflowed = true;
                }
                bytes.extend_from_slice(&buffer[..n.min(room)]);
            }
        }
    }
    Captured { bytes, overflowed }
}

fn wait(child: &mut Child, timeout: Duration, abort: &Abort) -> Result<Ending, RunFailure> {
    let deadline = Instant::now() + timeout;
    loop {
        if abort.is_aborted() {
            kill_group(child);
            return Ok(Ending::Aborted);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            kill_group(child);
            return Ok(Ending::TimedOut);
        }
        if let Some(status) = child.wait_timeout(left.min(ABORT_POLL)).map_err(RunFailure::Wait)? {
            return Ok(Ending::Exited(status));
        }
    }
}

/// Kills the child's process group (and the child itself, should the group be gone).
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        use nix::sys::signal::{killpg, Signal};
        use nix::unistd::Pid;
        if let Ok(pid) = i32::try_from(child.id()) {
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
    let _ = child.kill();
}

/// A short account of a failed command's standard error for a message: the last 2,000
/// characters, trimmed.
pub(crate) fn stderr_excerpt(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    let count = text.chars().count();
    if count <= 2000 {
        text.to_owned()
    } else {
        let tail: String = text.chars().skip(count - 2000).collect();
        format!("…{tail}")
    }
}

/// How a status reads in a message: `exit status 3` or `killed by signal 9`.
pub(crate) fn describe_status(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("killed by signal {signal}");
        }
    }
    "an unknown exit status".to_owned()
}
