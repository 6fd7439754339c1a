//! The Rust halves of the sandbox's `string.find`, `match`, `gmatch` and `gsub` (see [`crate::pattern`]).
//!
//! Each function here returns a status first: `true` and its results, or `false` and an error message,
//! which the Lua wrappers in the prelude raise with `error(message, 0)`, so a script catches a plain
//! string, as it would from C. The message carries the position Lua's C function would give it (see
//! [`location`]); the budget's and memory's stop signals carry none. Argument checks follow Lua 5.1's
//! order and wording. `gsub` with a function or table replacement is driven by a loop in the prelude,
//! which calls the replacement from Lua (so its errors, and the budget's stop signal, travel unchanged)
//! and asks [`gsub_next`](crate::pattern::gsub_next) for one match at a time.

use std::rc::Rc;

use mlua::{Lua, MultiValue, Table, Value as LuaValue};

use crate::number::c_truncate;
use crate::pattern::{self, Capture, Steps, Stop};
use crate::sandbox::{type_name, LUA_MEMORY_MESSAGE, PRELUDE_NAME};

/// The instruction budget the pattern functions charge.
pub(crate) trait Budget {
    /// Steps left before the budget is exhausted.
    fn remaining(&self) -> u64;
    /// Records `steps` spent, and whether they exhausted the budget.
    fn spend(&self, steps: u64, exhausted: bool);
    /// The message a script sees when the budget runs out.
    fn exhausted_message(&self) -> String;
    /// Bytes a result built outside Lua's allocator may take (what the memory cap leaves).
    fn memory_allowance(&self, lua: &Lua) -> usize;
}

/// Why a function failed: a message for the script (raised at the caller's position), a stop signal (the
/// budget or memory, raised without a position), or an error from mlua itself.
enum Fault {
    Message(String),
    Stop(String),
    Lua(mlua::Error),
}

impl From<mlua::Error> for Fault {
    fn from(error: mlua::Error) -> Self {
        Fault::Lua(error)
    }
}

type Outcome = Result<Vec<LuaValue>, Fault>;

/// Creates the table of functions the prelude installs: `find`, `match`, `gmatch`, `gmatch_next`, `gsub`,
/// `gsub_next`, and `where` (`where(level)` is the position prefix of the function `level` calls up from
/// its caller, as `error`'s level counts).
///
/// Error positions: the wrappers call `find`, `match`, `gmatch` and `gsub` directly, and the `gmatch`
/// iterator calls `gmatch_next`, so the script is 2 levels up; the gsub loop calls `gsub_next` from a helper
/// the wrapper calls, so the script is 3 levels up.
pub(crate) fn create(lua: &Lua, budget: Rc<dyn Budget>) -> mlua::Result<Table> {
    let table = lua.create_table()?;
    let b = Rc::clone(&budget);
    let f = move |lua: &Lua, args: MultiValue| respond(lua, find(lua, &*b, &args, true), 2);
    table.set("find", lua.create_function(f)?)?;
    let b = Rc::clone(&budget);
    let f = move |lua: &Lua, args: MultiValue| respond(lua, find(lua, &*b, &args, false), 2);
    table.set("match", lua.create_function(f)?)?;
    let f = |lua: &Lua, args: MultiValue| respond(lua, gmatch(lua, &args), 2);
    table.set("gmatch", lua.create_function(f)?)?;
    let b = Rc::clone(&budget);
    let f = move |lua: &Lua, args: MultiValue| respond(lua, gmatch_next(lua, &*b, &args), 2);
    table.set("gmatch_next", lua.create_function(f)?)?;
    let b = Rc::clone(&budget);
    let f = move |lua: &Lua, args: MultiValue| respond(lua, gsub(lua, &*b, &args), 2);
    table.set("gsub", lua.create_function(f)?)?;
    let b = budget;
    let f = move |lua: &Lua, args: MultiValue| respond(lua, gsub_next(lua, &*b, &args), 3);
    table.set("gsub_next", lua.create_function(f)?)?;
    table.set("where", lua.create_function(|lua, level: usize| Ok(location(lua, level)))?)?;
    Ok(table)
}

/// The position Lua 5.1's `luaL_where` gives the function `level` calls up the stack (0 is the running Rust
/// function): `chunk:line: `, or nothing for a C function or a call lost to a tail call. The prelude counts
/// as C: Lua's C pattern functions are called directly by `pcall`, which the prelude's `pcall` wraps.
fn location(lua: &Lua, level: usize) -> String {
    lua.inspect_stack(level, |frame| {
        let line = frame.current_line()?;
        let source = frame.source();
        if source.source.as_deref().and_then(|s| s.strip_prefix('=')) == Some(PRELUDE_NAME) {
            return None;
        }
        Some(format!("{}:{line}: ", source.short_src?))
    })
    .flatten()
    .unwrap_or_default()
}

/// Puts the status in front of the results, or turns a failure into `false, message`, positioned at the
/// function `level` calls up the stack (the script that called the wrapper).
fn respond(lua: &Lua, outcome: Outcome, level: usize) -> mlua::Result<MultiValue> {
    let message = match outcome {
        Ok(mut values) => {
            values.insert(0, LuaValue::Boolean(true));
            return Ok(MultiValue::from_vec(values));
        }
        Err(Fault::Message(message)) => format!("{}{message}", location(lua, level)),
        Err(Fault::Stop(message)) => message,
        Err(Fault::Lua(mlua::Error::MemoryError(_))) => LUA_MEMORY_MESSAGE.to_owned(),
        Err(Fault::Lua(error)) => return Err(error),
    };
    Ok(MultiValue::from_vec(vec![LuaValue::Boolean(false), LuaValue::String(lua.create_string(message)?)]))
}

/// Runs a matcher operation on what is left of the budget, recording what it spent.
fn metered<T>(budget: &dyn Budget, operation: impl FnOnce(&mut Steps) -> Result<T, Stop>) -> Result<T, Fault> {
    let mut steps = Steps::new(budget.remaining());
    let result = operation(&mut steps);
    budget.spend(steps.spent(), result.as_ref().err() == Some(&Stop::Budget));
    result.map_err(|stop| match stop {
        Stop::Error(message) => Fault::Message(message.to_owned()),
        Stop::Budget => Fault::Stop(budget.exhausted_message()),
        Stop::Memory => Fault::Stop(LUA_MEMORY_MESSAGE.to_owned()),
    })
}

fn arg_error(position: usize, function: &str, detail: &str) -> Fault {
    Fault::Message(format!("bad argument #{position} to '{function}' ({detail})"))
}

fn type_error(args: &MultiValue, index: usize, function: &str, expected: &str) -> Fault {
    let got = args.get(index).map_or("no value", type_name);
    arg_error(index + 1, function, &format!("{expected} expected, got {got}"))
}

/// Argument `index` (0-based) as Lua 5.1's `luaL_checklstring` reads it: a string, or a number as text.
fn check_string(lua: &Lua, args: &MultiValue, index: usize, function: &str) -> Result<mlua::String, Fault> {
    match args.get(index) {
        Some(LuaValue::String(s)) => Ok(s.clone()),
        Some(v @ (LuaValue::Integer(_) | LuaValue::Number(_))) => {
            lua.coerce_string(v.clone())?.ok_or_else(|| type_error(args, index, function, "string"))
        }
        _ => Err(type_error(args, index, function, "string")),
    }
}

/// Argument `index` as Lua 5.1's `luaL_optinteger` reads it (`None` when absent or nil), truncated as a C
/// cast on x86-64 does (out of range and NaN give `i64::MIN`).
fn opt_integer(lua: &Lua, args: &MultiValue, index: usize, function: &str) -> Result<Option<i64>, Fault> {
    let number = match args.get(index) {
        None | Some(LuaValue::Nil) => return Ok(None),
        Some(LuaValue::Integer(i)) => return Ok(Some(*i)),
        Some(LuaValue::Number(n)) => Some(*n),
        Some(v @ LuaValue::String(_)) => lua.coerce_number(v.clone())?,
        Some(_) => None,
    };
    match number {
        Some(n) => Ok(Some(c_truncate(n))),
        None => Err(type_error(args, index, function, "number")),
    }
}

/// A capture as a Lua value.
fn capture_value(lua: &Lua, src: &[u8], capture: &Capture) -> mlua::Result<LuaValue> {
    Ok(match capture {
        Capture::Text(range) => LuaValue::String(lua.create_string(&src[range.clone()])?),
        Capture::Position(at) => LuaValue::Integer(*at as i64),
    })
}

fn push_captures(lua: &Lua, out: &mut Vec<LuaValue>, src: &[u8], captures: &[Capture]) -> mlua::Result<()> {
    for capture in captures {
        out.push(capture_value(lua, src, capture)?);
    }
    Ok(())
}

/// `string.find` (`find`) or `string.match`: `s, pattern [, init [, plain]]`.
fn find(lua: &Lua, budget: &dyn Budget, args: &MultiValue, find: bool) -> Outcome {
    let name = if find { "find" } else { "match" };
    let s = check_string(lua, args, 0, name)?;
    let p = check_string(lua, args, 1, name)?;
    let init = opt_integer(lua, args, 2, name)?.unwrap_or(1);
    let plain = find && args.get(3).is_some_and(|v| !matches!(v, LuaValue::Nil | LuaValue::Boolean(false)));
    let (src, pat) = (s.as_bytes(), p.as_bytes());
    let found = metered(budget, |steps| pattern::find(&src, &pat, init, plain, find, steps))?;
    let Some(found) = found else {
        return Ok(vec![LuaValue::Nil]);
    };
    let mut out = Vec::with_capacity(found.captures.len() + 2);
    if find {
        out.push(LuaValue::Integer(found.span.start as i64 + 1));
        out.push(LuaValue::Integer(found.span.end as i64));
    }
    push_captures(lua, &mut out, &src, &found.captures)?;
    Ok(out)
}

/// `string.gmatch`'s argument checks: `s, pattern` as strings.
fn gmatch(lua: &Lua, args: &MultiValue) -> Outcome {
    let s = check_string(lua, args, 0, "gmatch")?;
    let p = check_string(lua, args, 1, "gmatch")?;
    Ok(vec![LuaValue::String(s), LuaValue::String(p)])
}

/// A 0-based position the prelude passed back, clamped into `0..=limit`.
fn position(args: &MultiValue, index: usize, limit: usize) -> usize {
    let at = match args.get(index) {
        Some(LuaValue::Integer(i)) => usize::try_from(*i).unwrap_or(0),
        Some(LuaValue::Number(n)) if *n >= 0.0 => *n as usize,
        _ => 0,
    };
    at.min(limit)
}

/// One `gmatch` step: `s, pattern, pos` to nothing (no more matches) or the next `pos` and the captures.
fn gmatch_next(lua: &Lua, budget: &dyn Budget, args: &MultiValue) -> Outcome {
    let s = check_string(lua, args, 0, "gmatch")?;
    let p = check_string(lua, args, 1, "gmatch")?;
    let (src, pat) = (s.as_bytes(), p.as_bytes());
    let pos = position(args, 2, src.len() + 1);
    let Some((next, captures)) = metered(budget, |steps| pattern::gmatch_next(&src, &pat, pos, steps))? else {
        return Ok(Vec::new());
    };
    let mut out = vec![LuaValue::Integer(next as i64)];
    push_captures(lua, &mut out, &src, &captures)?;
    Ok(out)
}

/// `string.gsub`: `s, pattern, repl [, n]`. With a string or number replacement, the whole substitution:
/// `true, result, count`. With a function or table: `false, s, pattern, repl, n, anchored` for the prelude's
/// loop.
fn gsub(lua: &Lua, budget: &dyn Budget, args: &MultiValue) -> Outcome {
    let s = check_string(lua, args, 0, "gsub")?;
    let p = check_string(lua, args, 1, "gsub")?;
    let src = s.as_bytes();
    let max = match opt_integer(lua, args, 3, "gsub")? {
        Some(n) => n as i32,
        None => (src.len() as i64 + 1) as i32,
    };
    let repl = args.get(2).cloned().unwrap_or(LuaValue::Nil);
    match &repl {
        LuaValue::String(_) | LuaValue::Integer(_) | LuaValue::Number(_) => {
            let text = lua.coerce_string(repl.clone())?.ok_or_else(|| type_error(args, 2, "gsub", "string"))?;
            let pat = p.as_bytes();
            let allowance = budget.memory_allowance(lua);
            let (out, n) =
                metered(budget, |steps| pattern::gsub_string(&src, &pat, &text.as_bytes(), max, allowance, steps))?;
            Ok(vec![LuaValue::Boolean(true), LuaValue::String(lua.create_string(out)?), LuaValue::Integer(n.into())])
        }
        LuaValue::Function(_) | LuaValue::Table(_) => {
            let anchored = pattern::split_anchor(&p.as_bytes()).1;
            drop(src);
            Ok(vec![
                LuaValue::Boolean(false),
                LuaValue::String(s),
                LuaValue::String(p),
                repl,
                LuaValue::Integer(max.into()),
                LuaValue::Boolean(anchored),
            ])
        }
        _ => Err(arg_error(3, "gsub", "string/function/table expected")),
    }
}

/// The next match of a `gsub` with a function or table replacement: `s, pattern, pos, is_table` to nothing
/// (no more matches) or the match's 0-based start and end and the values to pass to the replacement.
fn gsub_next(lua: &Lua, budget: &dyn Budget, args: &MultiValue) -> Outcome {
    let s = check_string(lua, args, 0, "gsub")?;
    let p = check_string(lua, args, 1, "gsub")?;
    let (src, pat) = (s.as_bytes(), p.as_bytes());
    let pos = position(args, 2, src.len());
    let first_only = matches!(args.get(3), Some(LuaValue::Boolean(true)));
    let Some(found) = metered(budget, |steps| pattern::gsub_next(&src, &pat, pos, first_only, steps))? else {
        return Ok(Vec::new());
    };
    let mut out = vec![LuaValue::Integer(found.span.start as i64), LuaValue::Integer(found.span.end as i64)];
    push_captures(lua, &mut out, &src, &found.captures)?;
    Ok(out)
}
