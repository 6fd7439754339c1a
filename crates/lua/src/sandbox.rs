//! The mlua-backed implementation of [`ScriptHost`].

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, Ordering};

use mlua::{ChunkMode, HookTriggers, Lua, LuaOptions, MultiValue, StdLib, Table, VmState};

use crate::error::{ErrorKind, ScriptError};
use crate::rng::{lua51_checkint, SplitMix64};
use crate::snapshot::{Snapshot, SnapshotEntry, SnapshotKey, SnapshotValue};
use crate::strlib::{self, Budget};
use crate::{ChunkId, ChunkKind, Key, Limits, ScriptHost, Value};

/// The globals scripts can see: the sandbox keeps these of the standard libraries and removes
/// everything else (`io`, `os`, `debug`, `package`, the loaders). `check`s that ask which names a
/// chunk can read without defining them start from this list.
pub const SANDBOX_GLOBALS: &[&str] = &[
    "_G",
    "_VERSION",
    "assert",
    "error",
    "getmetatable",
    "ipairs",
    "math",
    "next",
    "pairs",
    "pcall",
    "print",
    "rawequal",
    "rawget",
    "rawset",
    "select",
    "setmetatable",
    "string",
    "table",
    "tonumber",
    "tostring",
    "type",
    "unpack",
    "xpcall",
];

/// The longest pattern (in bytes) `string.find`, `match`, `gmatch` and `gsub` accept. It bounds the
/// matcher's stack of choice points (at most one per pattern byte) and the cost of each of its steps.
pub const MAX_PATTERN_BYTES: usize = 1024;

/// How much `print` output the log keeps (in bytes) before it drops lines.
pub const MAX_LOG_BYTES: usize = 1 << 20;

/// How deep a snapshot (or a restore) may nest tables.
pub const MAX_SNAPSHOT_DEPTH: usize = 100;

/// How many values a snapshot may hold in all (shared subtables are copied each time they are reached).
pub const MAX_SNAPSHOT_VALUES: usize = 1_000_000;

/// How many bytes a library function written in C may build or move for one instruction of the
/// budget (see the crate's Limits).
pub const BYTES_A_STEP: usize = 64;

/// Charges `steps` (a count the prelude works out; anything not a positive number charges nothing)
/// to the running chunk's budget: the message of the budget's stop signal when that spends it.
fn charge(budget: &dyn Budget, steps: f64) -> Option<String> {
    // `as` saturates: a count past u64's range is the whole budget and more.
    let steps = if steps > 0.0 { steps.ceil() as u64 } else { 0 };
    let exhausted = steps >= budget.remaining();
    budget.spend(steps, exhausted);
    exhausted.then(|| budget.exhausted_message())
}

/// The chunk name of the bootstrap code.
pub(crate) const PRELUDE_NAME: &str = "stagehand-prelude";

/// The message Lua 5.1 raises when an allocation fails.
pub(crate) const LUA_MEMORY_MESSAGE: &str = "not enough memory";

/// Distinguishes hosts so a chunk id from one is refused by another.
static NEXT_HOST: AtomicU32 = AtomicU32::new(1);

/// State shared between the host and the Rust functions it hands to Lua.
struct Shared {
    /// Instructions counted in the current run (in steps of `step`).
    used: Cell<u64>,
    /// The per-run instruction budget.
    limit: u64,
    /// Set once the current run has spent its budget; cleared when the next run starts.
    blown: Cell<bool>,
    /// The generator behind `math.random`.
    rng: Cell<SplitMix64>,
    /// Captured `print` output.
    log: RefCell<Vec<String>>,
    /// Bytes held in `log`.
    log_bytes: Cell<usize>,
    /// Lines dropped since the log was last taken, because the log was full.
    log_dropped: Cell<u64>,
    /// The memory cap (0: none).
    memory_bytes: Cell<usize>,
}

impl Budget for Shared {
    fn remaining(&self) -> u64 {
        if self.blown.get() {
            0
        } else {
            self.limit.saturating_sub(self.used.get())
        }
    }

    fn spend(&self, steps: u64, exhausted: bool) {
        self.used.set(self.used.get().saturating_add(steps));
        if exhausted {
            self.blown.set(true);
        }
    }

    fn exhausted_message(&self) -> String {
        format!("instruction budget of {} exhausted", self.limit)
    }

    fn memory_allowance(&self, lua: &Lua) -> usize {
        match self.memory_bytes.get() {
            0 => usize::MAX,
            cap => cap.saturating_sub(lua.used_memory()),
        }
    }
}

impl Shared {
    fn emit(&self, line: String) {
        let bytes = self.log_bytes.get().saturating_add(line.len());
        if bytes > MAX_LOG_BYTES {
            self.log_dropped.set(self.log_dropped.get().saturating_add(1));
        } else {
            self.log_bytes.set(bytes);
            self.log.borrow_mut().push(line);
        }
    }
}

/// A compiled chunk, kept so it runs many times without being parsed again. The function itself
/// lives in the sandbox's `compiled` table at `slot`: holding one mlua handle per chunk would
/// spend one slot of mlua's auxiliary stack each, which runs out after a few thousand chunks.
struct Compiled {
    name: String,
    slot: i64,
}

/// A sandboxed Lua 5.1 state: the crate's implementation of [`ScriptHost`]. See the crate documentation for
/// what scripts can and cannot do.
///
/// A `Sandbox` is not `Send`: create it on the thread that uses it.
pub struct Sandbox {
    lua: Lua,
    shared: Rc<Shared>,
    chunks: Vec<Compiled>,
    /// Every compiled function, by slot (see [`Compiled`]).
    compiled: mlua::Table,
    limits: Limits,
    host: u32,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("limits", &self.limits)
            .field("chunks", &self.chunks.len())
            .field("rng_state", &self.rng_state())
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Creates a sandbox with these limits whose `math.random` starts from `seed`.
    ///
    /// Fails (with [`ErrorKind::Memory`]) only if `limits.memory_bytes` is too small to hold the standard
    /// library itself (about 40 KiB).
    pub fn new(limits: Limits, seed: u64) -> Result<Sandbox, ScriptError> {
        const SETUP: &str = "sandbox setup";
        let limits = Limits { instructions: limits.instructions.max(1), memory_bytes: limits.memory_bytes };
        let lua = Lua::new_with(StdLib::MATH | StdLib::STRING | StdLib::TABLE, LuaOptions::new())
            .map_err(|e| ScriptError::host(SETUP, e.to_string()))?;
        let shared = Rc::new(Shared {
            used: Cell::new(0),
            limit: limits.instructions,
            blown: Cell::new(false),
            rng: Cell::new(SplitMix64::new(seed)),
            log: RefCell::new(Vec::new()),
            log_bytes: Cell::new(0),
            log_dropped: Cell::new(0),
            memory_bytes: Cell::new(limits.memory_bytes),
        });
        let compiled = lua.create_table().map_err(|e| ScriptError::host(SETUP, e.to_string()))?;
        let sandbox = Sandbox {
            lua,
            shared,
            chunks: Vec::new(),
            compiled,
            limits,
            host: NEXT_HOST.fetch_add(1, Ordering::Relaxed),
        };
        if limits.memory_bytes > 0 {
            sandbox.lua.set_memory_limit(limits.memory_bytes).map_err(|e| ScriptError::host(SETUP, e.to_string()))?;
        }
        sandbox.install().map_err(|e| sandbox.classify(SETUP, e))?;
        Ok(sandbox)
    }

    /// The limits this sandbox enforces.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// How many chunks [`ScriptHost::compile`] has compiled (each is parsed exactly once).
    pub fn compiled_chunks(&self) -> usize {
        self.chunks.len()
    }

    /// Bytes currently allocated by the Lua state (what the memory cap is compared with).
    pub fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// Instructions counted during the most recent run, to the hook's granularity (at most 1000), with the
    /// steps the pattern functions charged.
    pub fn instructions_used(&self) -> u64 {
        self.shared.used.get()
    }

    /// Sets up the environment: the bootstrap (prelude.lua), the global allowlist and the budget hook.
    fn install(&self) -> mlua::Result<()> {
        let lua = &self.lua;
        let shared = Rc::clone(&self.shared);
        let emit = lua.create_function(move |_, line: mlua::String| {
            shared.emit(line.to_string_lossy());
            Ok(())
        })?;
        let shared = Rc::clone(&self.shared);
        let draw = lua.create_function(move |lua, args: MultiValue| Ok(draw(lua, &shared, &args)))?;
        let shared = Rc::clone(&self.shared);
        let reseed =
            lua.create_function(move |lua, args: MultiValue| match check_int(lua, &args, 0, "randomseed") {
                Ok(seed) => {
                    shared.rng.set(SplitMix64::new(i64::from(seed) as u64));
                    Ok(None)
                }
                Err(message) => Ok(Some(message)),
            })?;
        let shared = Rc::clone(&self.shared);
        let fatal = lua.create_function(move |_, error: mlua::Value| {
            let out_of_memory =
                matches!(&error, mlua::Value::String(s) if s.as_bytes().as_ref() == LUA_MEMORY_MESSAGE.as_bytes());
            Ok(shared.blown.get() || out_of_memory)
        })?;
        let shared = Rc::clone(&self.shared);
        let charge = lua.create_function(move |_, steps: f64| Ok(charge(&*shared, steps)))?;
        let shared: Rc<dyn Budget> = Rc::clone(&self.shared) as Rc<dyn Budget>;
        let patterns = strlib::create(lua, shared)?;
        lua.load(include_str!("prelude.lua"))
            .set_name(format!("={PRELUDE_NAME}"))
            .set_mode(ChunkMode::Text)
            .call::<()>((emit, draw, reseed, fatal, MAX_PATTERN_BYTES, patterns, charge, BYTES_A_STEP))?;

        let globals = lua.globals();
        let mut remove = Vec::new();
        for pair in globals.pairs::<mlua::Value, mlua::Value>() {
            let (key, _) = pair?;
            let allowed = match &key {
                mlua::Value::String(s) => SANDBOX_GLOBALS.iter().any(|name| s.as_bytes().as_ref() == name.as_bytes()),
                _ => false,
            };
            if !allowed {
                remove.push(key);
            }
        }
        for key in remove {
            globals.raw_set(key, mlua::Value::Nil)?;
        }
        lua.gc_collect()?;

        let shared = Rc::clone(&self.shared);
        let step = self.limits.instructions.min(1000);
        lua.set_hook(HookTriggers::new().every_nth_instruction(step as u32), move |_, _| {
            let used = shared.used.get().saturating_add(step);
            shared.used.set(used);
            if used >= shared.limit || shared.blown.get() {
                shared.blown.set(true);
                Err(mlua::Error::runtime(shared.exhausted_message()))
            } else {
                Ok(VmState::Continue)
            }
        })?;
        Ok(())
    }

    /// Runs `f` with a fresh instruction budget, mapping its error.
    fn budgeted<R>(&self, name: &str, f: impl FnOnce() -> mlua::Result<R>) -> Result<R, ScriptError> {
        self.shared.used.set(0);
        self.shared.blown.set(false);
        let result = f();
        result.map_err(|e| self.classify(name, e))
    }

    /// Turns an mlua error into a [`ScriptError`].
    fn classify(&self, name: &str, error: mlua::Error) -> ScriptError {
        let (kind, message) = if self.shared.blown.get() {
            (ErrorKind::Budget, self.shared.exhausted_message())
        } else {
            let (kind, message) = describe(&error);
            if kind == ErrorKind::Memory {
                // Free whatever the failed run left behind, so the next run starts with room.
                let _ = self.lua.gc_collect();
            }
            (kind, message)
        };
        ScriptError::new(kind, name, message)
    }

    fn fail(&self, name: &str, fail: Fail) -> ScriptError {
        match fail {
            Fail::Lua(error) => self.classify(name, error),
            Fail::Host(message) => ScriptError::host(name, message),
        }
    }

    fn chunk(&self, id: ChunkId) -> Result<&Compiled, ScriptError> {
        if id.host != self.host {
            return Err(ScriptError::host("chunk", "chunk id belongs to another host"));
        }
        self.chunks.get(id.index as usize).ok_or_else(|| ScriptError::host("chunk", "unknown chunk id"))
    }

    /// A compiled chunk's function, fetched from its slot for the length of one call.
    fn function(&self, compiled: &Compiled) -> Result<mlua::Function, ScriptError> {
        self.compiled.raw_get::<mlua::Function>(compiled.slot).map_err(|e| self.classify(&compiled.name, e))
    }

    /// Parses `source` into a function without running it.
    fn load_function(&self, name: &str, source: &str, kind: ChunkKind) -> Result<mlua::Function, ScriptError> {
        let text = match kind {
            ChunkKind::Condition => format!("return {source}"),
            ChunkKind::Script => source.to_owned(),
        };
        let chunk_name = format!("={}", name.replace('\0', "?"));
        self.lua
            .load(text)
            .set_name(chunk_name)
            .set_mode(ChunkMode::Text)
            .into_function()
            .map_err(|e| self.classify(name, e))
    }

    fn to_lua(&self, value: &Value) -> mlua::Result<mlua::Value> {
        Ok(match value {
            Value::Nil => mlua::Value::Nil,
            Value::Boolean(b) => mlua::Value::Boolean(*b),
            Value::Number(n) => mlua::Value::Number(*n),
            Value::String(s) => mlua::Value::String(self.lua.create_string(s)?),
        })
    }

    fn key_to_lua(&self, key: &Key<'_>) -> mlua::Result<mlua::Value> {
        Ok(match key {
            Key::Name(s) => mlua::Value::String(self.lua.create_string(s)?),
            Key::Index(i) => mlua::Value::Number(*i as f64),
        })
    }

    fn snapshot_key_to_lua(&self, key: &SnapshotKey) -> mlua::Result<mlua::Value> {
        Ok(match key {
            SnapshotKey::Boolean(b) => mlua::Value::Boolean(*b),
            SnapshotKey::Number(n) => mlua::Value::Number(*n),
            SnapshotKey::String(s) => mlua::Value::String(self.lua.create_string(s)?),
        })
    }

    /// Copies a Lua value into a snapshot value; `Ok(None)` for code (functions), which is not state.
    fn capture(
        &self,
        value: &mlua::Value,
        stack: &mut Vec<*const c_void>,
        count: &mut usize,
    ) -> Result<Option<SnapshotValue>, String> {
        *count += 1;
        if *count > MAX_SNAPSHOT_VALUES {
            return Err(format!("more than {MAX_SNAPSHOT_VALUES} values"));
        }
        Ok(Some(match value {
            mlua::Value::Nil => SnapshotValue::Nil,
            mlua::Value::Boolean(b) => SnapshotValue::Boolean(*b),
            mlua::Value::Integer(i) => SnapshotValue::Number(*i as f64),
            mlua::Value::Number(n) => SnapshotValue::Number(*n),
            mlua::Value::String(s) => SnapshotValue::String(s.to_string_lossy()),
            mlua::Value::Table(table) => {
                let pointer = table.to_pointer();
                if stack.contains(&pointer) {
                    return Err("a table contains itself (a cycle)".to_owned());
                }
                if stack.len() >= MAX_SNAPSHOT_DEPTH {
                    return Err(format!("tables nested more than {MAX_SNAPSHOT_DEPTH} deep"));
                }
                stack.push(pointer);
                let mut entries = Vec::new();
                for pair in table.pairs::<mlua::Value, mlua::Value>() {
                    let (key, value) = pair.map_err(|e| e.to_string())?;
                    let Some(value) = self.capture(&value, stack, count)? else { continue };
                    let Some(key) = snapshot_key(&key) else {
                        return Err(format!("a table has a key of type {}", type_name(&key)));
                    };
                    entries.push(SnapshotEntry { key, value });
                }
                stack.pop();
                entries.sort_by(|a, b| a.key.order(&b.key));
                SnapshotValue::Table(entries)
            }
            mlua::Value::Function(_) => return Ok(None),
            other => return Err(format!("a value of type {} cannot be saved", type_name(other))),
        }))
    }

    /// Builds the Lua value for a snapshot value, reusing `existing` when both are tables (so references
    /// to the table elsewhere stay valid).
    fn rebuild(&self, existing: mlua::Value, value: &SnapshotValue, depth: usize) -> mlua::Result<mlua::Value> {
        if depth > MAX_SNAPSHOT_DEPTH {
            return Err(mlua::Error::runtime(format!("snapshot nested more than {MAX_SNAPSHOT_DEPTH} deep")));
        }
        Ok(match value {
            SnapshotValue::Nil => mlua::Value::Nil,
            SnapshotValue::Boolean(b) => mlua::Value::Boolean(*b),
            SnapshotValue::Number(n) => mlua::Value::Number(*n),
            SnapshotValue::String(s) => mlua::Value::String(self.lua.create_string(s)?),
            SnapshotValue::Table(entries) => {
                let table = match existing {
                    mlua::Value::Table(table) => table,
                    _ => self.lua.create_table()?,
                };
                self.sync_table(&table, entries, depth)?;
                mlua::Value::Table(table)
            }
        })
    }

    /// Makes `table`'s data entries equal to `entries`, leaving functions (code) in place.
    fn sync_table(&self, table: &Table, entries: &[SnapshotEntry], depth: usize) -> mlua::Result<()> {
        let mut wanted: Vec<&SnapshotKey> = entries.iter().map(|e| &e.key).collect();
        wanted.sort_by(|a, b| a.order(b));
        let mut stale = Vec::new();
        for pair in table.pairs::<mlua::Value, mlua::Value>() {
            let (key, value) = pair?;
            if matches!(value, mlua::Value::Function(_)) {
                continue;
            }
            let Some(key_data) = snapshot_key(&key) else { continue };
            if wanted.binary_search_by(|k| k.order(&key_data)).is_err() {
                stale.push(key);
            }
        }
        for key in stale {
            table.raw_set(key, mlua::Value::Nil)?;
        }
        for entry in entries {
            if matches!(&entry.key, SnapshotKey::Number(n) if n.is_nan()) {
                return Err(mlua::Error::runtime("snapshot has a NaN table key"));
            }
            let key = self.snapshot_key_to_lua(&entry.key)?;
            let existing: mlua::Value = table.raw_get(key.clone())?;
            let value = self.rebuild(existing, &entry.value, depth + 1)?;
            table.raw_set(key, value)?;
        }
        Ok(())
    }
}

impl ScriptHost for Sandbox {
    fn compile(&mut self, name: &str, source: &str, kind: ChunkKind) -> Result<ChunkId, ScriptError> {
        let function = self.load_function(name, source, kind)?;
        let index = u32::try_from(self.chunks.len()).map_err(|_| ScriptError::host(name, "too many chunks"))?;
        let slot = i64::from(index) + 1;
        self.compiled.raw_set(slot, function).map_err(|e| self.classify(name, e))?;
        self.chunks.push(Compiled { name: name.to_owned(), slot });
        Ok(ChunkId { host: self.host, index })
    }

    fn evaluate(&mut self, chunk: ChunkId) -> Result<bool, ScriptError> {
        let compiled = self.chunk(chunk)?;
        let function = self.function(compiled)?;
        let values = self.budgeted(&compiled.name, || function.call::<MultiValue>(()))?;
        Ok(match values.front() {
            None => true,
            Some(mlua::Value::Nil) | Some(mlua::Value::Boolean(false)) => false,
            Some(_) => true,
        })
    }

    fn run(&mut self, chunk: ChunkId) -> Result<(), ScriptError> {
        let compiled = self.chunk(chunk)?;
        let function = self.function(compiled)?;
        self.budgeted(&compiled.name, || function.call::<MultiValue>(()).map(drop))
    }

    fn get(&self, path: &[Key<'_>]) -> Result<Value, ScriptError> {
        let name = path_name(path);
        let Some((last, parents)) = path.split_last() else {
            return Err(ScriptError::host(name, "empty path"));
        };
        let outcome = (|| -> Result<Value, Fail> {
            let mut table = self.lua.globals();
            for (depth, key) in parents.iter().enumerate() {
                table = match table.raw_get::<mlua::Value>(self.key_to_lua(key)?)? {
                    mlua::Value::Table(next) => next,
                    mlua::Value::Nil => return Ok(Value::Nil),
                    other => return Err(not_a_table(&path[..=depth], &other)),
                };
            }
            let value = table.raw_get::<mlua::Value>(self.key_to_lua(last)?)?;
            from_lua(&value).ok_or_else(|| Fail::Host(format!("{name} is a {}", type_name(&value))))
        })();
        outcome.map_err(|fail| self.fail(&name, fail))
    }

    fn set(&mut self, path: &[Key<'_>], value: Value) -> Result<(), ScriptError> {
        let name = path_name(path);
        let Some((last, parents)) = path.split_last() else {
            return Err(ScriptError::host(name, "empty path"));
        };
        let outcome = (|| -> Result<(), Fail> {
            let mut table = self.lua.globals();
            for (depth, key) in parents.iter().enumerate() {
                let lua_key = self.key_to_lua(key)?;
                table = match table.raw_get::<mlua::Value>(lua_key.clone())? {
                    mlua::Value::Table(next) => next,
                    mlua::Value::Nil => {
                        let created = self.lua.create_table()?;
                        table.raw_set(lua_key, created.clone())?;
                        created
                    }
                    other => return Err(not_a_table(&path[..=depth], &other)),
                };
            }
            table.raw_set(self.key_to_lua(last)?, self.to_lua(&value)?)?;
            Ok(())
        })();
        outcome.map_err(|fail| self.fail(&name, fail))
    }

    fn call(&mut self, function: &str, args: &[Value]) -> Result<Value, ScriptError> {
        let global = self.lua.globals().raw_get::<mlua::Value>(function).map_err(|e| self.classify(function, e))?;
        let mlua::Value::Function(f) = global else {
            return Err(ScriptError::new(
                ErrorKind::Runtime,
                function,
                format!("attempt to call global '{function}' (a {} value)", type_name(&global)),
            ));
        };
        let args = args
            .iter()
            .map(|a| self.to_lua(a))
            .collect::<mlua::Result<MultiValue>>()
            .map_err(|e| self.classify(function, e))?;
        let values = self.budgeted(function, || f.call::<MultiValue>(args))?;
        let first = values.front().cloned().unwrap_or(mlua::Value::Nil);
        from_lua(&first).ok_or_else(|| {
            ScriptError::host(function, format!("'{function}' returned a {}, not a scalar", type_name(&first)))
        })
    }

    fn has_function(&self, name: &str) -> bool {
        matches!(self.lua.globals().raw_get::<mlua::Value>(name), Ok(mlua::Value::Function(_)))
    }

    fn used_memory(&self) -> usize {
        self.lua.used_memory()
    }

    /// An engine that fills the state with a project's own tables and chunks first can then cap
    /// what scripts add: the used memory plus an allowance. Garbage is collected first, so the
    /// cap is measured against live data; a cap below what is live makes the next allocation fail
    /// ([`ErrorKind::Memory`](crate::ErrorKind::Memory)).
    fn set_memory_cap(&mut self, bytes: usize) -> Result<(), ScriptError> {
        let failed = |e: mlua::Error| ScriptError::host("memory cap", e.to_string());
        self.lua.gc_collect().map_err(failed)?;
        self.lua.set_memory_limit(bytes).map_err(failed)?;
        self.shared.memory_bytes.set(bytes);
        self.limits.memory_bytes = bytes;
        Ok(())
    }

    fn load(&mut self, name: &str, source: &str) -> Result<(), ScriptError> {
        let function = self.load_function(name, source, ChunkKind::Script)?;
        self.budgeted(name, || function.call::<MultiValue>(()).map(drop))
    }

    fn snapshot(&self, globals: &[&str]) -> Result<Snapshot, ScriptError> {
        let table = self.lua.globals();
        let mut snapshot = Snapshot::default();
        let mut count = 0;
        for &name in globals {
            let value = table.raw_get::<mlua::Value>(name).map_err(|e| self.classify(name, e))?;
            let captured = self
                .capture(&value, &mut Vec::new(), &mut count)
                .map_err(|message| ScriptError::host(name, format!("cannot snapshot '{name}': {message}")))?;
            let Some(captured) = captured else {
                return Err(ScriptError::host(name, format!("cannot snapshot '{name}': it is a function")));
            };
            snapshot.globals.insert(name.to_owned(), captured);
        }
        Ok(snapshot)
    }

    fn restore(&mut self, snapshot: &Snapshot) -> Result<(), ScriptError> {
        let table = self.lua.globals();
        for (name, value) in &snapshot.globals {
            let result = (|| {
                let existing = table.raw_get::<mlua::Value>(name.as_str())?;
                let rebuilt = self.rebuild(existing, value, 0)?;
                table.raw_set(name.as_str(), rebuilt)
            })();
            result.map_err(|e| self.classify(name, e))?;
        }
        Ok(())
    }

    fn rng_state(&self) -> u64 {
        self.shared.rng.get().state
    }

    fn set_rng_state(&mut self, state: u64) {
        self.shared.rng.set(SplitMix64::new(state));
    }

    fn take_log(&mut self) -> Vec<String> {
        let mut log = std::mem::take(&mut *self.shared.log.borrow_mut());
        self.shared.log_bytes.set(0);
        let dropped = self.shared.log_dropped.replace(0);
        if dropped > 0 {
            log.push(format!("[{dropped} more lines dropped: the print log holds {MAX_LOG_BYTES} bytes]"));
        }
        log
    }
}

/// A failure inside a host operation, before it becomes a [`ScriptError`].
enum Fail {
    Lua(mlua::Error),
    Host(String),
}

impl From<mlua::Error> for Fail {
    fn from(error: mlua::Error) -> Self {
        Fail::Lua(error)
    }
}

fn not_a_table(path: &[Key<'_>], value: &mlua::Value) -> Fail {
    Fail::Host(format!("{} is a {}, not a table", path_name(path), type_name(value)))
}

/// The `math.random` implementation: `(value, nil)` or `(nil, message)`.
fn draw(lua: &Lua, shared: &Shared, args: &MultiValue) -> (Option<f64>, Option<String>) {
    let bounds = match args.len() {
        0 => None,
        1 => match check_int(lua, args, 0, "random") {
            Ok(high) if high >= 1 => Some((1, high)),
            Ok(_) => return (None, Some(arg_error(1, "random", "interval is empty"))),
            Err(message) => return (None, Some(message)),
        },
        2 => {
            let low = match check_int(lua, args, 0, "random") {
                Ok(low) => low,
                Err(message) => return (None, Some(message)),
            };
            match check_int(lua, args, 1, "random") {
                Ok(high) if low <= high => Some((low, high)),
                Ok(_) => return (None, Some(arg_error(2, "random", "interval is empty"))),
                Err(message) => return (None, Some(message)),
            }
        }
        _ => return (None, Some("wrong number of arguments".to_owned())),
    };
    let mut rng = shared.rng.get();
    let value = match bounds {
        None => rng.next_f64(),
        Some((low, high)) => rng.next_in_range(low, high),
    };
    shared.rng.set(rng);
    (Some(value), None)
}

/// Reads argument `index` (0-based) as Lua 5.1's `luaL_checkint` does, or returns its error message.
fn check_int(lua: &Lua, args: &MultiValue, index: usize, function: &str) -> Result<i32, String> {
    let value = args.get(index).cloned();
    let number = match &value {
        Some(mlua::Value::Integer(i)) => Some(*i as f64),
        Some(mlua::Value::Number(n)) => Some(*n),
        Some(v @ mlua::Value::String(_)) => lua.coerce_number(v.clone()).ok().flatten(),
        _ => None,
    };
    match number {
        Some(n) => Ok(lua51_checkint(n)),
        None => {
            let got = value.as_ref().map_or("no value", type_name);
            Err(arg_error(index + 1, function, &format!("number expected, got {got}")))
        }
    }
}

fn arg_error(position: usize, function: &str, detail: &str) -> String {
    format!("bad argument #{position} to '{function}' ({detail})")
}

/// Lua's name for a value's type.
pub(crate) fn type_name(value: &mlua::Value) -> &'static str {
    match value {
        mlua::Value::Nil => "nil",
        mlua::Value::Boolean(_) => "boolean",
        mlua::Value::Integer(_) | mlua::Value::Number(_) => "number",
        mlua::Value::String(_) => "string",
        mlua::Value::Table(_) => "table",
        mlua::Value::Function(_) => "function",
        mlua::Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

/// A Lua table key as a snapshot key; `None` for keys a snapshot cannot hold (tables, functions and the rest).
fn snapshot_key(key: &mlua::Value) -> Option<SnapshotKey> {
    Some(match key {
        mlua::Value::Boolean(b) => SnapshotKey::Boolean(*b),
        mlua::Value::Integer(i) => SnapshotKey::Number(*i as f64),
        mlua::Value::Number(n) => SnapshotKey::Number(*n),
        mlua::Value::String(s) => SnapshotKey::String(s.to_string_lossy()),
        _ => return None,
    })
}

/// A scalar Lua value as a [`Value`]; `None` for tables, functions and the rest.
fn from_lua(value: &mlua::Value) -> Option<Value> {
    Some(match value {
        mlua::Value::Nil => Value::Nil,
        mlua::Value::Boolean(b) => Value::Boolean(*b),
        mlua::Value::Integer(i) => Value::Number(*i as f64),
        mlua::Value::Number(n) => Value::Number(*n),
        mlua::Value::String(s) => Value::String(s.to_string_lossy()),
        _ => return None,
    })
}

/// A path written as Lua would index it, for messages: `Actor["Player"]["Name"]`.
fn path_name(path: &[Key<'_>]) -> String {
    let mut out = String::new();
    for (i, key) in path.iter().enumerate() {
        match key {
            Key::Name(s) if i == 0 => out.push_str(s),
            Key::Name(s) => out.push_str(&format!("[{s:?}]")),
            Key::Index(n) => out.push_str(&format!("[{n}]")),
        }
    }
    out
}

/// The kind and the message (without Lua's stack traceback) of an mlua error.
fn describe(error: &mlua::Error) -> (ErrorKind, String) {
    match error {
        mlua::Error::SyntaxError { message, .. } => (ErrorKind::Syntax, strip_traceback(message)),
        mlua::Error::MemoryError(message) => (ErrorKind::Memory, strip_traceback(message)),
        mlua::Error::RuntimeError(message) => {
            let message = strip_traceback(message);
            let kind = if message == LUA_MEMORY_MESSAGE { ErrorKind::Memory } else { ErrorKind::Runtime };
            (kind, message)
        }
        mlua::Error::CallbackError { cause, .. } => describe(cause),
        other => (ErrorKind::Runtime, strip_traceback(&other.to_string())),
    }
}

/// Removes mlua's appended stack traceback, and the position inside the host's prelude that Lua puts on
/// errors raised within a wrapper (a script calling `pcall(nil)` or `string.find(nil, "x")`).
fn strip_traceback(message: &str) -> String {
    let message = match message.find("\nstack traceback:") {
        Some(at) => &message[..at],
        None => message,
    };
    let message = match message.strip_prefix(PRELUDE_NAME).and_then(|rest| rest.strip_prefix(':')) {
        Some(rest) => rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches(": "),
        None => message,
    };
    message.to_owned()
}
