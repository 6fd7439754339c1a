//! A small, sandboxed, deterministic Lua 5.1 host for Stagehand's engines.
//!
//! The ChatMapper engine (conditions and scripts in projects) and the terminal player's Lua worlds program
//! against the [`ScriptHost`] trait; nothing above this crate sees an `mlua` type. [`Sandbox`] implements it
//! on a vendored PUC Lua 5.1.5 through `mlua`.
//!
//! ```
//! use stagehand_lua::{ChunkKind, Key, Limits, Sandbox, ScriptHost, Value};
//!
//! let mut host = Sandbox::new(Limits::default(), 7)?;
//! host.set(&["Variable".into(), "Gold".into()], Value::Number(12.0))?;
//! let rich = host.compile("node 4 condition", r#"Variable["Gold"] >= 10"#, ChunkKind::Condition)?;
//! assert!(host.evaluate(rich)?);
//! let pay = host.compile("node 4 script", r#"Variable["Gold"] = Variable["Gold"] - 5"#, ChunkKind::Script)?;
//! host.run(pay)?;
//! assert!(!host.evaluate(rich)?);
//! assert_eq!(host.get(&[Key::from("Variable"), Key::from("Gold")])?, Value::Number(7.0));
//! # Ok::<(), stagehand_lua::ScriptError>(())
//! ```
//!
//! # Chunks
//!
//! A chunk is compiled once by [`ScriptHost::compile`] and run any number of times by id. A
//! [`ChunkKind::Condition`] is a single Lua expression (it is compiled as `return <source>`, so `x = 5` is a
//! [`ErrorKind::Syntax`] error); [`ScriptHost::evaluate`] gives the Lua truthiness of its value. A condition
//! with no value at all (empty, or only a comment) is true, as ChatMapper treats an empty condition. A
//! [`ChunkKind::Script`] is a sequence of statements. Source is always loaded as text: precompiled Lua
//! bytecode is refused.
//!
//! # The sandbox
//!
//! Scripts see only these globals: `_G`, `_VERSION`, `assert`, `error`, `getmetatable`, `ipairs`, `next`,
//! `pairs`, `pcall`, `print`, `rawequal`, `rawget`, `rawset`, `select`, `setmetatable`, `tonumber`,
//! `tostring`, `type`, `unpack`, `xpcall`, and the `string`, `table` and `math` libraries.
//!
//! Removed, so untrusted code cannot reach the filesystem, the environment, the process, the host's memory
//! or other code loaders: `io`, `os`, `debug`, `package`, `require`, `module`, `load`, `loadstring`,
//! `loadfile`, `dofile`, `getfenv`, `setfenv` (which could reach a function's or the caller's environment),
//! `collectgarbage` and `gcinfo` (memory control and a nondeterministic reading), `newproxy` (userdata with
//! finalizers), `coroutine` (a resumed coroutine catches errors, so it could swallow the budget's stop
//! signal) and `string.dump`.
//!
//! Kept on purpose: `rawget`, `rawset` and `rawequal` only bypass metatables that scripts set themselves
//! (the host protects nothing with metatables), and `setmetatable`/`getmetatable` allow the usual Lua object
//! idioms; the metatable shared by all strings is hidden (`getmetatable("")` is `false`) so a script cannot
//! change how every string indexes.
//!
//! Replaced: `print` appends a line (the `tostring` of each argument, joined by tabs) to a log the host reads
//! with [`ScriptHost::take_log`] (at most [`MAX_LOG_BYTES`] are kept; later lines are counted and dropped);
//! `pcall` and `xpcall` behave as Lua's but cannot catch the budget or memory stop (the error is raised again
//! past every protected call); `math.random` and `math.randomseed` use the host's generator (below);
//! `string.find`, `match`, `gmatch` and `gsub` run on the host's own Lua 5.1 pattern matcher (below) and
//! refuse patterns longer than [`MAX_PATTERN_BYTES`]; `string.rep` of the empty string returns at once
//! instead of looping in C up to 2^31 times. These wrappers are Lua functions in a private prelude: an error
//! raised inside one (`pcall(nil)`) carries a `stagehand-prelude:N:` position when a script catches it, which
//! [`ScriptError::message`] omits.
//!
//! # Patterns
//!
//! Lua's C pattern functions run where the instruction hook cannot see them, so a pattern that backtracks
//! badly (`string.find(string.rep("a", 40), string.rep("a*", 40) .. "b")`, or `.-` patterns against a
//! subject of megabytes) would hang the host. The sandbox replaces them with a matcher written in Rust that
//! charges its work to the running chunk's instruction budget: one instruction for each pattern item tried
//! at a subject position and for each backtrack, one for each subject byte a quantifier or `%b` scans, and
//! one more per 32 bytes that a set, a back-reference or a plain `find` compares. When the budget runs out
//! inside a pattern function, the run stops with [`ErrorKind::Budget`] exactly as an endless loop does
//! (`pcall` cannot catch it). Backtracking keeps its choice points on the heap, at most one per pattern byte,
//! so no pattern can overflow the stack. A `gsub` result built outside Lua's allocator is checked against
//! what the memory cap leaves ([`ErrorKind::Memory`] past it).
//!
//! The functions behave as Lua 5.1.5's, quirks included, and are tested against the C functions on many
//! thousands of cases: the same results, the same values for `find`'s `init` and `plain`, `gsub`'s
//! replacements and `n`, `gmatch`'s empty matches, Lua 5.1's undocumented frontier pattern `%f[set]`, a
//! pattern ending at its first NUL byte, and the same error messages (`malformed pattern (ends with '%')`,
//! `malformed pattern (missing ']')`, `invalid capture index`, `invalid pattern capture`,
//! `unfinished capture`, `too many captures`, `unbalanced pattern`, `missing '[' after '%f' in pattern`,
//! `invalid replacement value (a table)`, argument errors), raised only when the matcher reaches the
//! malformed part, at the calling line. Three differences remain, all in error text: a call in tail
//! position (`return s:match(p)`) reports its error without the `chunk:line:` position (the caller's frame
//! is gone by then); argument errors name the function even when `pcall` calls it directly (C says `'?'`);
//! and a method call's argument errors count `self` as argument #1 (C counts from the first explicit
//! argument).
//!
//! # Limits
//!
//! [`Limits::instructions`] is a budget of Lua VM instructions for each [`ScriptHost::evaluate`],
//! [`ScriptHost::run`], [`ScriptHost::call`] and [`ScriptHost::load`], counted by an instruction-count hook
//! every 1000 instructions (or every `instructions` if that is smaller); the run that spends it fails with
//! [`ErrorKind::Budget`]. With the default million instructions, `while true do end` stops in a few
//! milliseconds. The pattern functions charge their steps to the same budget (see [Patterns](#patterns)).
//!
//! Other library functions work in C for as long as their string or table is, in what the hook counts as
//! one instruction, so a loop of them (`for i = 1, 1e5 do local u = s:upper() end` over a megabyte) could
//! run for hours within the budget. They charge that work to the budget: `string.upper`, `lower`,
//! `reverse`, `sub`, `format`, `char` and `rep`, `table.concat` and `print` one step for each
//! [`BYTES_A_STEP`] bytes they build; `table.insert` and `remove` a quarter step for each element of the
//! table, `table.sort` a quarter step for each of its `n log2 n` comparisons, before they run; `table.maxn`,
//! `foreach` and `foreachi` run in Lua, where the hook counts them. Their results and errors are Lua's (an
//! argument error names the function at the caller's line). Two operators remain that the sandbox cannot
//! charge, as they are the virtual machine's own: `..` copies both strings, and `<` on strings compares
//! them, in one instruction; the memory cap bounds each (a loop that grows a string one byte at a time
//! up to the budget copies about 30 GB, a few seconds).
//!
//! [`Limits::memory_bytes`] caps the memory of the whole Lua state (globals, compiled chunks and a run's
//! temporaries); an allocation past it fails and the run stops with [`ErrorKind::Memory`], after which the
//! host collects garbage. A script that keeps the memory in a global keeps it: later runs may then fail too.
//! [`ScriptHost::set_memory_cap`] changes the cap later (after collecting garbage), so an engine can fill the
//! state with its own data first and then cap what scripts add ([`ScriptHost::used_memory`] plus an
//! allowance).
//!
//! A host stays usable after any error: the next evaluation gets a fresh budget.
//!
//! # Randomness
//!
//! `math.random` draws from [`SplitMix64`], whose whole state is one `u64` ([`ScriptHost::rng_state`],
//! [`ScriptHost::set_rng_state`]); the same seed replays the same draws. `math.random()` is
//! `(next >> 11) * 2^-53` in `[0, 1)`; `math.random(m)` is `floor(r * m) + 1` in `[1, m]`;
//! `math.random(m, n)` is `floor(r * (n - m + 1)) + m` in `[m, n]`; arguments are read as Lua 5.1 reads them
//! (numbers or numeric strings, truncated to a C `int`), and bad ones raise Lua 5.1's messages
//! (`bad argument #1 to 'random' (interval is empty)`, `wrong number of arguments`) without advancing the
//! generator. `math.randomseed(x)` sets the state to the `int` value of `x`, sign-extended.
//!
//! # Determinism
//!
//! Given the same seed, chunks and host calls, runs replay exactly, with two caveats that scripts control:
//! `tostring` of a table or function shows an address, and `pairs` over tables keyed by tables or functions
//! visits them in address order.

mod error;
mod number;
mod pattern;
mod rng;
mod sandbox;
mod snapshot;
mod strlib;

use serde::{Deserialize, Serialize};

pub use error::{ErrorKind, ScriptError};
pub use number::format_number;
pub use rng::SplitMix64;
pub use sandbox::{
    Sandbox, BYTES_A_STEP, MAX_LOG_BYTES, MAX_PATTERN_BYTES, MAX_SNAPSHOT_DEPTH, MAX_SNAPSHOT_VALUES, SANDBOX_GLOBALS,
};
pub use snapshot::{Snapshot, SnapshotEntry, SnapshotKey, SnapshotValue};

/// What a chunk's source is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// One Lua expression, whose value is tested for truthiness (a ChatMapper `ConditionsString`).
    Condition,
    /// Lua statements (a ChatMapper `UserScript`).
    Script,
}

/// A compiled chunk in one host. Ids are only meaningful to the host that made them; another host refuses
/// them with [`ErrorKind::Host`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkId {
    host: u32,
    index: u32,
}

/// Resource limits for a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Lua VM instructions each evaluation, run, call or load may execute (at least 1).
    pub instructions: u64,
    /// Bytes the whole Lua state may hold; 0 means no cap.
    pub memory_bytes: usize,
}

impl Default for Limits {
    /// One million instructions and 16 MiB.
    fn default() -> Self {
        Limits { instructions: 1_000_000, memory_bytes: 16 << 20 }
    }
}

/// A scalar Lua value, as the host exchanges them with engines.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// `nil`.
    Nil,
    /// `true` or `false`.
    Boolean(bool),
    /// A number (Lua 5.1 has only doubles).
    Number(f64),
    /// A string (a Lua string that is not UTF-8 comes back with U+FFFD replacements).
    String(String),
}

impl Value {
    /// Lua truthiness: everything but `nil` and `false` is true.
    pub fn is_truthy(&self) -> bool {
        !matches!(self, Value::Nil | Value::Boolean(false))
    }
}

impl std::fmt::Display for Value {
    /// As Lua 5.1's `tostring`: `nil`, `true`, `5`, `0.1`, the string itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Number(n) => f.write_str(&format_number(*n)),
            Value::String(s) => f.write_str(s),
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Boolean(b)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<i32> for Value {
    fn from(n: i32) -> Self {
        Value::Number(f64::from(n))
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.to_owned())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

/// One step of a path into the globals: `Actor["Player"]["Name"]` is
/// `[Key::Name("Actor"), Key::Name("Player"), Key::Name("Name")]`, `Conversation[1].Dialog[5]` is
/// `[Key::Name("Conversation"), Key::Index(1), Key::Name("Dialog"), Key::Index(5)]`. Lua tells the string
/// key `"1"` from the number key `1`, so a path does too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key<'a> {
    /// A string key (any bytes: spaces, hyphens, non-ASCII all fine).
    Name(&'a str),
    /// A number key (converted to a Lua number, so exact up to 2^53).
    Index(i64),
}

impl<'a> From<&'a str> for Key<'a> {
    fn from(name: &'a str) -> Self {
        Key::Name(name)
    }
}

impl<'a> From<&'a String> for Key<'a> {
    fn from(name: &'a String) -> Self {
        Key::Name(name)
    }
}

impl From<i64> for Key<'_> {
    fn from(index: i64) -> Self {
        Key::Index(index)
    }
}

/// What engines need from a script host. Implemented by [`Sandbox`]; object safe, so engines may hold a
/// `Box<dyn ScriptHost>`.
///
/// Every method that runs Lua code ([`evaluate`](Self::evaluate), [`run`](Self::run), [`call`](Self::call),
/// [`load`](Self::load)) does so under a fresh instruction budget. The path, snapshot and restore methods use
/// raw table access: they run no Lua code (no metamethods).
pub trait ScriptHost {
    /// Compiles `source` once; `name` labels its errors (Lua messages read `name:line: ...`).
    fn compile(&mut self, name: &str, source: &str, kind: ChunkKind) -> Result<ChunkId, ScriptError>;

    /// Runs a chunk and returns the Lua truthiness of its first value (true if it returns none).
    fn evaluate(&mut self, chunk: ChunkId) -> Result<bool, ScriptError>;

    /// Runs a chunk for its effects, discarding any value.
    fn run(&mut self, chunk: ChunkId) -> Result<(), ScriptError>;

    /// Reads the scalar at `path` from the globals. A missing key (or a missing table on the way) is
    /// [`Value::Nil`]; a table or function at the end, or a non-table on the way, is an [`ErrorKind::Host`]
    /// error.
    fn get(&self, path: &[Key<'_>]) -> Result<Value, ScriptError>;

    /// Writes `value` at `path` in the globals, creating missing tables on the way; [`Value::Nil`] removes
    /// the key. A non-table on the way is an [`ErrorKind::Host`] error.
    fn set(&mut self, path: &[Key<'_>], value: Value) -> Result<(), ScriptError>;

    /// Calls the global function `function` with `args` and returns its first result ([`Value::Nil`] if
    /// none). A missing global is an [`ErrorKind::Runtime`] error; a table or function result is an
    /// [`ErrorKind::Host`] error (the call's effects remain).
    fn call(&mut self, function: &str, args: &[Value]) -> Result<Value, ScriptError>;

    /// Whether the global `name` is a function.
    fn has_function(&self, name: &str) -> bool;

    /// Bytes the Lua state holds now (what the memory cap is compared with).
    fn used_memory(&self) -> usize;

    /// Sets the memory cap to `bytes` (0: none) from now on, after collecting garbage.
    fn set_memory_cap(&mut self, bytes: usize) -> Result<(), ScriptError>;

    /// Compiles and runs a chunk of statements once, at top level (to define functions and tables).
    fn load(&mut self, name: &str, source: &str) -> Result<(), ScriptError>;

    /// Deep-copies the named globals' data: strings, numbers, booleans and tables of them. Functions inside
    /// tables are skipped (code is not state: reload it); a global that is a function, a cycle, a key that
    /// is a table or function, tables nested deeper than [`MAX_SNAPSHOT_DEPTH`] or more than
    /// [`MAX_SNAPSHOT_VALUES`] values are [`ErrorKind::Host`] errors. A table reached twice is copied twice.
    fn snapshot(&self, globals: &[&str]) -> Result<Snapshot, ScriptError>;

    /// Puts a snapshot's globals back. Tables are restored in place where a table already stands (so other
    /// references to it see the restored contents): data keys the snapshot lacks are removed, functions are
    /// left alone. Not atomic: an error (memory) can leave some globals restored.
    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), ScriptError>;

    /// The random generator's whole state.
    fn rng_state(&self) -> u64;

    /// Sets the random generator's state (from a save, or to reseed).
    fn set_rng_state(&mut self, state: u64);

    /// Takes the lines `print` wrote since the last call.
    fn take_log(&mut self) -> Vec<String>;
}
