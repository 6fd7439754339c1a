//! The error type every host operation returns.

use std::fmt;

/// What went wrong, in the categories an engine reacts to differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The source does not parse (for a condition: it is not a single expression).
    Syntax,
    /// The code raised an error while running (calling nil, indexing nil, `error(...)`, a bad argument…).
    Runtime,
    /// The run used up its instruction budget and was stopped.
    Budget,
    /// The Lua state reached its memory cap and the run was stopped.
    Memory,
    /// The host API was misused or asked for something it cannot represent: an unknown chunk id, a path
    /// through a value that is not a table, a table where a scalar was expected, a cyclic snapshot.
    Host,
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::Syntax => "syntax error",
            ErrorKind::Runtime => "runtime error",
            ErrorKind::Budget => "instruction budget exhausted",
            ErrorKind::Memory => "memory cap reached",
            ErrorKind::Host => "host error",
        })
    }
}

/// An error from the script host. It never carries a Lua value, only text, so it is `Send`, `Clone` and
/// cheap to log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} in {chunk}: {message}")]
pub struct ScriptError {
    /// The category of the failure.
    pub kind: ErrorKind,
    /// The name of the chunk (or function, or path) being compiled or run when the error happened.
    pub chunk: String,
    /// Lua's message, without a stack traceback (for example `cond:1: attempt to index global 'game' (a nil
    /// value)`), or the host's own description.
    pub message: String,
}

impl ScriptError {
    /// Builds an error of the given kind.
    pub fn new(kind: ErrorKind, chunk: impl Into<String>, message: impl Into<String>) -> Self {
        ScriptError { kind, chunk: chunk.into(), message: message.into() }
    }

    /// Shorthand for a [`ErrorKind::Host`] error.
    pub(crate) fn host(chunk: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Host, chunk, message)
    }
}
