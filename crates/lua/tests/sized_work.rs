//! Library functions that work in C for as long as their string or table is (one instruction to the
//! budget's hook) charge that work to the budget, so a loop of them stops as an endless loop does.
//! Each loop here is bounded: without the charge it would finish (after gigabytes of copying, or
//! billions of moves), so a sandbox that did not charge fails the test rather than hanging it.

use stagehand_lua::{ChunkKind, ErrorKind, Key, Limits, Sandbox, ScriptError, ScriptHost, Value, BYTES_A_STEP};

fn host() -> Sandbox {
    Sandbox::new(Limits::default(), 1).expect("a default sandbox")
}

fn exec(host: &mut Sandbox, source: &str) -> Result<(), ScriptError> {
    let chunk = host.compile("script", source, ChunkKind::Script)?;
    host.run(chunk)
}

fn global(host: &Sandbox, name: &str) -> Value {
    host.get(&[Key::Name(name)]).expect("a scalar global")
}

/// A megabyte, built once before each loop.
const SETUP: &str = "local s = string.rep('x', 1024 * 1024) local t = {} for i = 1, 100000 do t[i] = -i end ";

#[test]
fn loops_of_sized_library_work_spend_the_budget() {
    let loops = [
        ("upper", "for i = 1, 2000 do local u = s:upper() end"),
        ("lower", "for i = 1, 2000 do local u = string.lower(s) end"),
        ("reverse", "for i = 1, 2000 do local u = s:reverse() end"),
        ("sub", "for i = 1, 2000 do local u = s:sub(2) end"),
        ("format", "for i = 1, 2000 do local u = string.format('%s', s) end"),
        ("rep", "for i = 1, 2000 do local u = s:rep(2) end"),
        ("table.concat", "local parts = {s, s} for i = 1, 2000 do local u = table.concat(parts) end"),
        ("table.insert and remove", "for i = 1, 100000 do table.insert(t, 1, i) table.remove(t, 1) end"),
        ("table.sort", "for i = 1, 2000 do table.sort(t) end"),
        ("table.maxn", "for i = 1, 2000 do local m = table.maxn(t) end"),
        ("print", "for i = 1, 2000 do print(s) end"),
    ];
    for (name, body) in loops {
        let mut h = host();
        let err = exec(&mut h, &format!("{SETUP}{body} finished = true")).expect_err(name);
        assert_eq!(err.kind, ErrorKind::Budget, "{name}: {err}");
        assert_eq!(global(&h, "finished"), Value::Nil, "{name}");
        assert!(h.instructions_used() >= h.limits().instructions, "{name}: the budget is spent");
    }
}

#[test]
fn pcall_cannot_swallow_a_charge_that_spends_the_budget() {
    let mut h = host();
    let err = exec(&mut h, &format!("{SETUP}for i = 1, 2000 do pcall(string.upper, s) end finished = true"))
        .expect_err("the budget stops it");
    assert_eq!(err.kind, ErrorKind::Budget, "{err}");
    assert_eq!(global(&h, "finished"), Value::Nil);
}

#[test]
fn small_work_is_charged_little() {
    let mut h = host();
    exec(&mut h, "for i = 1, 1000 do local u = ('abc'):upper() .. table.concat({1, 2, 3}, ',') end").unwrap();
    // A few dozen instructions an iteration: the loop's, and each wrapper's own.
    assert!(h.instructions_used() < 100_000, "{} steps", h.instructions_used());
    // A string of BYTES_A_STEP bytes built a thousand times costs a thousand steps more.
    let before = {
        exec(&mut h, "for i = 1, 1000 do local u = ('a'):upper() end").unwrap();
        h.instructions_used()
    };
    exec(&mut h, &format!("for i = 1, 1000 do local u = ('a'):rep({BYTES_A_STEP}):upper() end")).unwrap();
    assert!(h.instructions_used() >= before + 1000, "{} then {}", before, h.instructions_used());
}

#[test]
fn the_charged_functions_still_behave_as_lua_s() {
    let mut h = host();
    exec(
        &mut h,
        "local t = {3, 1, 2} table.sort(t) table.insert(t, 4) table.insert(t, 1, 0)
         local removed = table.remove(t, 1)
         local d = {5, 4} table.sort(d, function(a, b) return a < b end)
         local seen = 0 table.foreachi({7, 8}, function(i, v) seen = seen + i * v end)
         local keyed = table.foreach({a = 1}, function(k, v) return k .. v end)
         x = table.concat(t, ',') .. '|' .. removed .. '|' .. d[1] .. '|' .. seen .. '|' .. keyed
           .. '|' .. table.maxn({1, 2, [10] = 3, [10.5] = 4}) .. '|' .. ('ab'):rep(3) .. '|' .. ('abc'):sub(2)
           .. '|' .. string.format('%05.1f', 3.14159) .. '|' .. ('AbC'):lower() .. ('x'):reverse()
           .. '|' .. select('#', table.remove({}))",
    )
    .unwrap();
    assert_eq!(global(&h, "x"), Value::String("1,2,3,4|0|4|23|a1|10.5|ababab|bc|003.1|abcx|0".into()));
}

#[test]
fn their_errors_name_the_function_at_the_caller_s_line() {
    let mut h = host();
    let cases = [
        ("string.upper()", "script:1: bad argument #1 to 'upper' (string expected, got no value)"),
        ("string.rep(nil, 2)", "script:1: bad argument #1 to 'rep' (string expected, got nil)"),
        ("table.insert(nil, 2)", "script:1: bad argument #1 to 'insert' (table expected, got nil)"),
        ("table.concat({{}})", "script:1: invalid value (table) at index 1 in table for 'concat'"),
        ("table.sort(nil)", "script:1: bad argument #1 to 'sort' (table expected, got nil)"),
        ("table.sort({}, 1)", "script:1: bad argument #2 to 'sort' (function expected, got number)"),
        ("table.maxn()", "script:1: bad argument #1 to 'maxn' (table expected, got no value)"),
        ("table.foreach({}, 1)", "script:1: bad argument #2 to 'foreach' (function expected, got number)"),
        ("string.format('%y', 1)", "script:1: invalid option '%y' to 'format'"),
        ("table.sort({2, 1}, function() error('boom') end)", "script:1: boom"),
    ];
    for (call, message) in cases {
        exec(&mut h, &format!("local ok, e = pcall(function() local v = {call} end) x = e")).unwrap();
        assert_eq!(global(&h, "x"), Value::String(message.into()), "{call}");
    }
}
