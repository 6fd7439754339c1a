//! Behaviour of the sandboxed host through its public API.

use std::time::{Duration, Instant};

use stagehand_lua::{
    format_number, ChunkKind, ErrorKind, Key, Limits, Sandbox, ScriptError, ScriptHost, Snapshot, SnapshotValue, Value,
};

fn host() -> Sandbox {
    Sandbox::new(Limits::default(), 1).expect("a default sandbox")
}

fn eval(host: &mut Sandbox, source: &str) -> Result<bool, ScriptError> {
    let chunk = host.compile("cond", source, ChunkKind::Condition)?;
    host.evaluate(chunk)
}

fn exec(host: &mut Sandbox, source: &str) -> Result<(), ScriptError> {
    let chunk = host.compile("script", source, ChunkKind::Script)?;
    host.run(chunk)
}

fn path<'a>(parts: &[&'a str]) -> Vec<Key<'a>> {
    parts.iter().map(|&p| Key::Name(p)).collect()
}

/// Evaluates a Lua expression in a script and reads it back through a global.
fn value_of(host: &mut Sandbox, expression: &str) -> Value {
    exec(host, &format!("__probe = {expression}")).expect("probe runs");
    host.get(&path(&["__probe"])).expect("probe is a scalar")
}

// ---------------------------------------------------------------- conditions and scripts

#[test]
fn conditions_use_lua_truthiness() {
    let mut h = host();
    assert!(eval(&mut h, "true").unwrap());
    assert!(!eval(&mut h, "false").unwrap());
    assert!(!eval(&mut h, "nil").unwrap());
    assert!(eval(&mut h, "0").unwrap(), "0 is true in Lua");
    assert!(eval(&mut h, "''").unwrap(), "the empty string is true in Lua");
    assert!(eval(&mut h, "1 < 2 and 'x' ~= 'y'").unwrap());
    assert!(!eval(&mut h, "undefined_global").unwrap());
}

#[test]
fn empty_and_comment_only_conditions_are_true() {
    let mut h = host();
    assert!(eval(&mut h, "").unwrap());
    assert!(eval(&mut h, "   \n ").unwrap());
    assert!(eval(&mut h, "-- nothing to test").unwrap());
}

#[test]
fn a_condition_that_is_not_an_expression_is_a_syntax_error() {
    let mut h = host();
    for source in ["x = 5", "if x then end", "return true", "a == 1; b = 2", "(", "x ==", "\u{1b}Lua"] {
        let err = h.compile("node 7", source, ChunkKind::Condition).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Syntax, "{source:?}: {err}");
        assert_eq!(err.chunk, "node 7");
    }
}

#[test]
fn script_syntax_errors_name_the_chunk_and_line() {
    let mut h = host();
    let err = h.compile("node 12 script", "x = 1\ny = = 2", ChunkKind::Script).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Syntax);
    assert!(err.message.starts_with("node 12 script:2:"), "{}", err.message);
}

#[test]
fn precompiled_bytecode_is_refused() {
    let mut h = host();
    let err = h.compile("bytes", "\u{1b}LuaQ\0\u{1}\u{4}", ChunkKind::Script).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Syntax, "{err}");
}

#[test]
fn calling_an_engine_function_that_does_not_exist_is_a_runtime_error() {
    let mut h = host();
    let err = exec(&mut h, "game.currentScene:Load()").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Runtime);
    assert!(err.message.contains("game"), "{}", err.message);
    assert!(!err.message.contains("stack traceback"), "{}", err.message);
    let err = eval(&mut h, "Missing() == 1").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Runtime);
    assert!(err.message.starts_with("cond:1:"), "{}", err.message);
}

#[test]
fn scripts_change_state_conditions_see_it() {
    let mut h = host();
    exec(&mut h, "has_token = false").unwrap();
    let cond = h.compile("node 5", "has_token == true", ChunkKind::Condition).unwrap();
    assert!(!h.evaluate(cond).unwrap());
    exec(&mut h, "has_token = true; count = (count or 0) + 1").unwrap();
    assert!(h.evaluate(cond).unwrap());
}

#[test]
fn a_chunk_is_compiled_once_and_runs_many_times() {
    let mut h = host();
    let script = h.compile("counter", "n = (n or 0) + 1", ChunkKind::Script).unwrap();
    let cond = h.compile("check", "n >= 100", ChunkKind::Condition).unwrap();
    assert_eq!(h.compiled_chunks(), 2);
    for _ in 0..100 {
        h.run(script).unwrap();
    }
    assert!(h.evaluate(cond).unwrap());
    assert_eq!(h.compiled_chunks(), 2, "running does not compile again");
    assert_eq!(h.get(&path(&["n"])).unwrap(), Value::Number(100.0));
}

#[test]
fn chunk_ids_are_checked() {
    let mut a = host();
    let mut b = host();
    let from_a = a.compile("a", "true", ChunkKind::Condition).unwrap();
    assert_eq!(b.evaluate(from_a).unwrap_err().kind, ErrorKind::Host);
    assert!(a.evaluate(from_a).unwrap());
}

#[test]
fn a_failed_compile_leaves_other_chunks_working() {
    let mut h = host();
    let good = h.compile("good", "1 + 1 == 2", ChunkKind::Condition).unwrap();
    assert!(h.compile("bad", "1 +", ChunkKind::Condition).is_err());
    assert!(h.evaluate(good).unwrap());
}

#[test]
fn evaluate_and_run_accept_either_kind() {
    let mut h = host();
    let script = h.compile("s", "x = 3 return x > 2", ChunkKind::Script).unwrap();
    assert!(h.evaluate(script).unwrap());
    let cond = h.compile("c", "x", ChunkKind::Condition).unwrap();
    h.run(cond).unwrap();
}

// ---------------------------------------------------------------- sandbox

#[test]
fn forbidden_globals_are_nil() {
    let mut h = host();
    for name in [
        "io",
        "os",
        "debug",
        "package",
        "load",
        "loadstring",
        "dofile",
        "loadfile",
        "require",
        "module",
        "collectgarbage",
        "getfenv",
        "setfenv",
        "newproxy",
        "gcinfo",
        "coroutine",
    ] {
        assert!(eval(&mut h, &format!("{name} == nil")).unwrap(), "{name} must be nil");
        assert!(eval(&mut h, &format!("rawget(_G, {name:?}) == nil")).unwrap(), "{name} must be absent from _G");
        assert!(!h.has_function(name), "{name}");
        let err = exec(&mut h, &format!("{name}()")).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Runtime, "{name}");
    }
    assert!(eval(&mut h, "string.dump == nil").unwrap());
    assert!(eval(&mut h, "(''):len() == 0 and ('').dump == nil").unwrap());
}

#[test]
fn allowed_globals_work() {
    let mut h = host();
    exec(
        &mut h,
        r##"
        local t = {}
        for i, v in ipairs({3, 1, 2}) do t[#t + 1] = v * i end
        table.sort(t)
        assert(table.concat(t, ",") == "2,3,6")
        assert(string.format("%d-%s", 5, "x") == "5-x")
        assert(("Holztür"):upper() ~= nil)
        assert(math.floor(2.7) == 2 and math.max(1, 5) == 5)
        assert(select("#", 1, nil, 3) == 3)
        assert(unpack({1, 2}) == 1)
        assert(tonumber("0x10") == 16 and tostring(5) == "5" and type({}) == "table")
        local ok, err = pcall(error, "boom", 0)
        assert(not ok and err == "boom")
        local ok2, err2 = pcall(error, {code = 7})
        assert(not ok2 and err2.code == 7, "error objects survive pcall")
        assert(xpcall(function() return true end, print))
        local n = 0
        for k, v in pairs({a = 1, b = 2}) do n = n + v end
        assert(n == 3 and next({}) == nil)
        local obj = setmetatable({}, {__index = function(_, k) return k .. "!" end})
        assert(obj.hi == "hi!" and rawget(obj, "hi") == nil)
        assert(_G == _G._G and _VERSION == "Lua 5.1")
        assert(("a,b"):find(",") == 2 and ("x=1"):match("(%w)=(%d)") == "x")
        assert(select(2, ("aaa"):gsub("a", "b")) == 3)
        for w in ("one two"):gmatch("%a+") do n = n + 1 end
        assert(n == 5)
    "##,
    )
    .unwrap();
}

#[test]
fn the_string_metatable_is_hidden() {
    let mut h = host();
    assert!(eval(&mut h, "getmetatable('') == false").unwrap());
    let err = exec(&mut h, "getmetatable('').__index = {}").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Runtime);
    assert!(eval(&mut h, "('abc'):sub(2, 2) == 'b'").unwrap());
}

#[test]
fn print_goes_to_the_log_not_stdout() {
    let mut h = host();
    exec(&mut h, "print('hello', 5, nil, true, 0.5) print()").unwrap();
    assert_eq!(h.take_log(), vec!["hello\t5\tnil\ttrue\t0.5".to_owned(), String::new()]);
    assert!(h.take_log().is_empty());
}

#[test]
fn the_log_is_capped() {
    let mut h = host();
    exec(&mut h, "local s = string.rep('x', 1000) for i = 1, 2000 do print(s) end").unwrap();
    let log = h.take_log();
    assert!(log.len() < 2000);
    assert!(log.last().unwrap().contains("more lines dropped"), "{:?}", log.last());
}

#[test]
fn huge_patterns_are_refused_normal_ones_work() {
    let mut h = host();
    let err = exec(&mut h, "string.find('aaa', string.rep('a?', 100000))").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Runtime);
    assert!(err.message.contains("pattern too long"), "{}", err.message);
    let err = exec(&mut h, "('aaa'):gsub(string.rep('a?', 100000), '')").unwrap_err();
    assert!(err.message.contains("pattern too long"), "{}", err.message);
    // The largest accepted pattern runs without trouble.
    exec(&mut h, "assert(string.find(string.rep('a', 600), string.rep('a?', 512)) == 1)").unwrap();
}

#[test]
fn repeating_the_empty_string_is_immediate() {
    let mut h = host();
    // Guards against building the result piece by piece: two billion appends of nothing would
    // take minutes. The limit is generous so a loaded machine never trips it.
    let started = Instant::now();
    assert!(eval(&mut h, "string.rep('', 2^31 - 1) == '' and (''):rep('2000000000') == ''").unwrap());
    assert!(started.elapsed() < Duration::from_secs(30), "took {:?}", started.elapsed());
    assert!(eval(&mut h, "string.rep('ab', 3) == 'ababab' and string.rep('x', -1) == ''").unwrap());
    let err = exec(&mut h, "string.rep('')").unwrap_err();
    assert!(err.message.contains("bad argument #2 to 'rep'"), "{}", err.message);
}

#[test]
fn engines_can_hold_a_boxed_host() {
    let mut boxed: Box<dyn ScriptHost> = Box::new(host());
    let chunk = boxed.compile("c", "true", ChunkKind::Condition).unwrap();
    assert!(boxed.evaluate(chunk).unwrap());
}

#[test]
fn errors_report_lua_51_argument_messages() {
    let mut h = host();
    let err = exec(&mut h, "string.rep()").unwrap_err();
    assert!(err.message.contains("bad argument #1 to 'rep'"), "{}", err.message);
    let err = exec(&mut h, "string.find(nil, 'x')").unwrap_err();
    assert!(err.message.contains("bad argument #1 to 'find'"), "{}", err.message);
}

// ---------------------------------------------------------------- budget

/// The most a run may count past its budget before the stop: one stride of the instruction hook.
const HOOK_STRIDE: u64 = 1000;

/// The run was stopped by its budget once it had done that much work, and not much more: the work
/// is counted, so the check holds however loaded the machine is.
fn assert_budget(result: Result<(), ScriptError>, host: &Sandbox) {
    let err = result.unwrap_err();
    assert_eq!(err.kind, ErrorKind::Budget, "{err}");
    let (used, budget) = (host.instructions_used(), host.limits().instructions);
    assert!(used >= budget && used <= budget + HOOK_STRIDE, "{used} steps counted against a budget of {budget}");
}

#[test]
fn an_endless_condition_is_stopped() {
    let mut h = host();
    let chunk = h.compile("spin", "(function() while true do end end)()", ChunkKind::Condition).unwrap();
    assert_budget(h.evaluate(chunk).map(drop), &h);
    assert!(eval(&mut h, "1 == 1").unwrap(), "the host stays usable");
}

#[test]
fn an_endless_script_is_stopped() {
    let mut h = host();
    assert_budget(exec(&mut h, "while true do end"), &h);
    assert_budget(exec(&mut h, "local function f() return f() end f()"), &h);
    exec(&mut h, "done = true").unwrap();
    assert!(eval(&mut h, "done").unwrap());
}

#[test]
fn pcall_cannot_swallow_the_budget() {
    let mut h = host();
    assert_budget(exec(&mut h, "while true do pcall(function() while true do end end) end"), &h);
    assert_budget(
        exec(&mut h, "while true do xpcall(function() while true do end end, function(e) while true do end end) end"),
        &h,
    );
    assert_budget(exec(&mut h, "local ok = pcall(function() while true do end end) caught = true"), &h);
    assert!(!eval(&mut h, "caught").unwrap(), "nothing after the caught budget error ran");
}

#[test]
fn protected_calls_pass_many_results_through() {
    let mut h = host();
    exec(&mut h, "local t = {} for i = 1, 300 do t[i] = i end n, last = select('#', pcall(unpack, t)), select(301, pcall(unpack, t))").unwrap();
    assert_eq!(h.get(&path(&["n"])).unwrap(), Value::Number(301.0));
    assert_eq!(h.get(&path(&["last"])).unwrap(), Value::Number(300.0));
    exec(
        &mut h,
        "local t = {} for i = 1, 300 do t[i] = i end n = select('#', xpcall(function() return unpack(t) end, print))",
    )
    .unwrap();
    assert_eq!(h.get(&path(&["n"])).unwrap(), Value::Number(301.0));
    exec(&mut h, "n = select('#', pcall(function() return nil, nil end))").unwrap();
    assert_eq!(h.get(&path(&["n"])).unwrap(), Value::Number(3.0), "trailing nils survive");
}

#[test]
fn xpcall_handlers_still_work() {
    let mut h = host();
    exec(&mut h, "ok, msg = xpcall(function() error('x') end, function(e) return 'handled: ' .. e end)").unwrap();
    assert_eq!(h.get(&path(&["msg"])).unwrap(), Value::from("handled: script:1: x"));
    let err = exec(&mut h, "xpcall(function() end)").unwrap_err();
    assert_eq!(err.message, "script:1: bad argument #2 to 'xpcall' (value expected)");
    let err = exec(&mut h, "pcall()").unwrap_err();
    assert_eq!(err.message, "script:1: bad argument #1 to 'pcall' (value expected)");
    exec(&mut h, "ok, msg = pcall(nil)").unwrap();
    let Value::String(msg) = h.get(&path(&["msg"])).unwrap() else { panic!("msg is a string") };
    assert!(msg.contains("attempt to call"), "{msg}");
    let err = exec(&mut h, "string.find(nil, 'x')").unwrap_err();
    // At the calling line, as Lua 5.1's C function reports it.
    assert_eq!(err.message, "script:1: bad argument #1 to 'find' (string expected, got nil)");
    exec(&mut h, "ok, msg = xpcall(function() error('x') end, 5)").unwrap();
    assert_eq!(h.get(&path(&["msg"])).unwrap(), Value::from("error in error handling"));
    assert_budget(exec(&mut h, "xpcall(function() error('x') end, function(e) while true do end end)"), &h);
}

#[test]
fn deep_recursion_is_stopped() {
    let mut h = host();
    let err = exec(&mut h, "local function f(n) return 1 + f(n + 1) end f(1)").unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Runtime | ErrorKind::Memory | ErrorKind::Budget), "{err}");
    let err = exec(
        &mut h,
        "local t = setmetatable({}, {}) getmetatable(t).__index = function(t, k) return t[k] end local x = t.x",
    )
    .unwrap_err();
    assert!(matches!(err.kind, ErrorKind::Runtime | ErrorKind::Budget), "{err}");
    // Protected calls nested as deep as Lua allows, each catching the overflow of the next.
    exec(&mut h, "local function f() return pcall(f) end deep = f()").unwrap();
    assert!(eval(&mut h, "deep == true").unwrap());
    assert!(eval(&mut h, "true").unwrap());
}

#[test]
fn deeply_nested_source_is_a_syntax_error_not_a_crash() {
    let mut h = host();
    let parens = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
    assert_eq!(h.compile("parens", &parens, ChunkKind::Condition).unwrap_err().kind, ErrorKind::Syntax);
    let nots = format!("{}true", "not ".repeat(100_000));
    assert_eq!(h.compile("nots", &nots, ChunkKind::Condition).unwrap_err().kind, ErrorKind::Syntax);
    let concat = format!("x = 'a'{}", " .. 'a'".repeat(100_000));
    let _ = h.compile("concat", &concat, ChunkKind::Script);
    let blocks = format!("{}{}", "do ".repeat(100_000), "end ".repeat(100_000));
    assert_eq!(h.compile("blocks", &blocks, ChunkKind::Script).unwrap_err().kind, ErrorKind::Syntax);
    assert!(eval(&mut h, "true").unwrap());
}

#[test]
fn each_run_gets_a_fresh_budget() {
    let mut h = Sandbox::new(Limits { instructions: 50_000, ..Limits::default() }, 1).unwrap();
    let chunk = h.compile("loop", "for i = 1, 5000 do end", ChunkKind::Script).unwrap();
    for _ in 0..100 {
        h.run(chunk).unwrap();
    }
    let too_long = h.compile("loop", "for i = 1, 100000 do end", ChunkKind::Script).unwrap();
    assert_eq!(h.run(too_long).unwrap_err().kind, ErrorKind::Budget);
    h.run(chunk).unwrap();
}

#[test]
fn calls_and_loads_are_budgeted() {
    let mut h = host();
    assert_budget(h.load("world", "while true do end"), &h);
    h.load("world", "function spin() while true do end end function add(a, b) return a + b end").unwrap();
    assert_budget(h.call("spin", &[]).map(drop), &h);
    assert_eq!(h.call("add", &[Value::Number(2.0), Value::Number(3.0)]).unwrap(), Value::Number(5.0));
}

// ---------------------------------------------------------------- memory

#[test]
fn a_huge_table_is_stopped_by_the_memory_cap() {
    let mut h = host();
    let err = exec(&mut h, "local t = {} for i = 1, 1e8 do t[i] = string.rep('x', 1000) .. i end").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
    assert!(h.used_memory() < Limits::default().memory_bytes / 2, "garbage was collected");
    assert!(eval(&mut h, "1 == 1").unwrap());
    exec(&mut h, "small = {1, 2, 3}").unwrap();
}

#[test]
fn a_huge_string_is_stopped_by_the_memory_cap() {
    let mut h = host();
    let err = exec(&mut h, "local s = string.rep('x', 64 * 1024 * 1024)").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
    let err = exec(&mut h, "local s = 'x' while true do s = s .. s end").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
    assert!(eval(&mut h, "('x'):rep(10) == 'xxxxxxxxxx'").unwrap());
}

#[test]
fn pcall_cannot_swallow_the_memory_cap() {
    let mut h = host();
    let err = exec(&mut h, "pcall(string.rep, 'x', 64 * 1024 * 1024) survived = true").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
    assert!(!eval(&mut h, "survived").unwrap());
}

#[test]
fn a_tiny_memory_cap_fails_cleanly() {
    let err = Sandbox::new(Limits { memory_bytes: 1024, ..Limits::default() }, 1).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
}

// ---------------------------------------------------------------- randomness

fn draws(h: &mut Sandbox, n: usize) -> Vec<f64> {
    exec(h, &format!("__draws = {{}} for i = 1, {n} do __draws[i] = math.random(1, 1000) end")).unwrap();
    let snapshot = h.snapshot(&["__draws"]).unwrap();
    match &snapshot.globals["__draws"] {
        SnapshotValue::Table(entries) => entries
            .iter()
            .map(|e| match e.value {
                SnapshotValue::Number(n) => n,
                _ => f64::NAN,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn the_same_seed_draws_the_same_sequence() {
    let mut a = Sandbox::new(Limits::default(), 99).unwrap();
    let mut b = Sandbox::new(Limits::default(), 99).unwrap();
    let mut c = Sandbox::new(Limits::default(), 100).unwrap();
    let (da, db, dc) = (draws(&mut a, 50), draws(&mut b, 50), draws(&mut c, 50));
    assert_eq!(da.len(), 50);
    assert_eq!(da, db);
    assert_ne!(da, dc);
    assert!(da.iter().all(|&d| (1.0..=1000.0).contains(&d) && d.fract() == 0.0));
}

#[test]
fn saving_and_restoring_the_rng_state_replays() {
    let mut h = Sandbox::new(Limits::default(), 5).unwrap();
    draws(&mut h, 3);
    let state = h.rng_state();
    let first = draws(&mut h, 20);
    assert_ne!(h.rng_state(), state);
    h.set_rng_state(state);
    assert_eq!(draws(&mut h, 20), first);
    let mut other = Sandbox::new(Limits::default(), 12345).unwrap();
    other.set_rng_state(state);
    assert_eq!(draws(&mut other, 20), first);
}

#[test]
fn random_follows_the_documented_mapping() {
    let mut h = Sandbox::new(Limits::default(), 2024).unwrap();
    let mut reference = stagehand_lua::SplitMix64::new(2024);
    let float = value_of(&mut h, "math.random()");
    assert_eq!(float, Value::Number(reference.next_f64()));
    let die = value_of(&mut h, "math.random(6)");
    assert_eq!(die, Value::Number(reference.next_in_range(1, 6)));
    let range = value_of(&mut h, "math.random(-3, 3)");
    assert_eq!(range, Value::Number(reference.next_in_range(-3, 3)));
    let coerced = value_of(&mut h, "math.random('10')");
    assert_eq!(coerced, Value::Number(reference.next_in_range(1, 10)));
    assert_eq!(h.rng_state(), reference.state);
    assert_eq!(value_of(&mut h, "math.random(1, 1)"), Value::Number(1.0));
}

#[test]
fn randomseed_restarts_the_sequence() {
    let mut h = host();
    let a = value_of(&mut h, "(function() math.randomseed(42) return math.random(1000000) end)()");
    let b = value_of(&mut h, "(function() math.randomseed(42.9) return math.random(1000000) end)()");
    assert_eq!(a, b, "the seed is truncated to an int");
    assert_eq!(h.rng_state(), {
        let mut r = stagehand_lua::SplitMix64::new(42);
        r.next_u64();
        r.state
    });
}

#[test]
fn random_argument_errors_match_lua_51() {
    let mut h = host();
    let state = h.rng_state();
    let cases = [
        ("math.random(0)", "bad argument #1 to 'random' (interval is empty)"),
        ("math.random(5, 1)", "bad argument #2 to 'random' (interval is empty)"),
        ("math.random(1, 2, 3)", "wrong number of arguments"),
        ("math.random('x')", "bad argument #1 to 'random' (number expected, got string)"),
        ("math.random({})", "bad argument #1 to 'random' (number expected, got table)"),
        ("math.random(1, nil)", "bad argument #2 to 'random' (number expected, got nil)"),
        ("math.randomseed()", "bad argument #1 to 'randomseed' (number expected, got no value)"),
    ];
    for (source, expected) in cases {
        // Lua 5.1 reports a library function's argument error at the calling line.
        let expected = format!("script:1: {expected}");
        let err = exec(&mut h, source).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Runtime);
        assert_eq!(err.message, expected, "{source}");
        let caught = value_of(&mut h, &format!("select(2, pcall(function() {source} end))"));
        assert_eq!(caught, Value::String(expected), "{source} inside pcall");
    }
    assert_eq!(h.rng_state(), state, "failed calls do not advance the generator");
}

// ---------------------------------------------------------------- paths

#[test]
fn get_and_set_paths_with_awkward_keys() {
    let mut h = host();
    h.set(&path(&["Location", "Holztür", "Name"]), Value::from("Die Holztür")).unwrap();
    h.set(&path(&["Quest", "Talk_to_FET-1", "State"]), Value::from("active")).unwrap();
    h.set(&path(&["Actor", "Kick Hart", "Age"]), Value::from(42)).unwrap();
    h.set(&path(&["Variable", "has token"]), Value::from(true)).unwrap();
    assert!(eval(&mut h, r#"Location["Holztür"]["Name"] == "Die Holztür""#).unwrap());
    assert!(eval(&mut h, r#"Quest["Talk_to_FET-1"].State == "active""#).unwrap());
    assert!(eval(&mut h, r#"Actor["Kick Hart"].Age == 42 and Variable["has token"] == true"#).unwrap());

    exec(&mut h, r#"Location["Holztür"].Open = true; Quest["Talk_to_FET-1"].State = "done""#).unwrap();
    assert_eq!(h.get(&path(&["Location", "Holztür", "Open"])).unwrap(), Value::Boolean(true));
    assert_eq!(h.get(&path(&["Quest", "Talk_to_FET-1", "State"])).unwrap(), Value::from("done"));
    assert_eq!(h.get(&path(&["Actor", "Kick Hart", "Age"])).unwrap(), Value::Number(42.0));
}

#[test]
fn number_keys_differ_from_string_keys() {
    let mut h = host();
    exec(&mut h, r#"Conversation = {[1] = {Dialog = {[5] = {SimStatus = "Untouched"}}}}"#).unwrap();
    let sim = [Key::Name("Conversation"), Key::Index(1), Key::Name("Dialog"), Key::Index(5), Key::Name("SimStatus")];
    assert_eq!(h.get(&sim).unwrap(), Value::from("Untouched"));
    h.set(&sim, Value::from("WasDisplayed")).unwrap();
    assert!(eval(&mut h, r#"Conversation[1].Dialog[5].SimStatus == "WasDisplayed""#).unwrap());
    let by_name = [Key::Name("Conversation"), Key::Name("1")];
    assert_eq!(h.get(&by_name).unwrap(), Value::Nil);
}

#[test]
fn get_and_set_edge_cases() {
    let mut h = host();
    assert_eq!(h.get(&path(&["Nothing", "here", "at all"])).unwrap(), Value::Nil);
    assert_eq!(h.get(&[]).unwrap_err().kind, ErrorKind::Host);
    h.set(&path(&["x"]), Value::Number(1.5)).unwrap();
    assert_eq!(h.get(&path(&["x", "y"])).unwrap_err().kind, ErrorKind::Host, "indexing a number");
    assert_eq!(h.set(&path(&["x", "y"]), Value::Nil).unwrap_err().kind, ErrorKind::Host);
    h.set(&path(&["t", "k"]), Value::from("v")).unwrap();
    assert_eq!(h.get(&path(&["t"])).unwrap_err().kind, ErrorKind::Host, "a table is not a scalar");
    h.set(&path(&["t", "k"]), Value::Nil).unwrap();
    assert!(eval(&mut h, "next(t) == nil").unwrap());
    h.set(&path(&["nan"]), Value::Number(f64::NAN)).unwrap();
    assert!(eval(&mut h, "nan ~= nan").unwrap());
    assert_eq!(h.get(&path(&["print"])).unwrap_err().kind, ErrorKind::Host);
}

#[test]
fn get_does_not_run_metamethods() {
    let mut h = host();
    exec(&mut h, "Trap = setmetatable({}, {__index = function() while true do end end})").unwrap();
    assert_eq!(h.get(&path(&["Trap", "anything"])).unwrap(), Value::Nil);
    h.set(&path(&["Trap", "anything"]), Value::from(1)).unwrap();
}

// ---------------------------------------------------------------- call / load / has_function

#[test]
fn call_and_has_function() {
    let mut h = host();
    h.load("world.lua", "function greet(name) return 'hello ' .. name end function pair() return {} end").unwrap();
    assert!(h.has_function("greet"));
    assert!(h.has_function("print"));
    assert!(!h.has_function("nothing"));
    assert_eq!(h.call("greet", &[Value::from("Ana")]).unwrap(), Value::from("hello Ana"));
    assert_eq!(h.call("greet", &[]).unwrap_err().kind, ErrorKind::Runtime);
    assert_eq!(h.call("nothing", &[]).unwrap_err().kind, ErrorKind::Runtime);
    assert_eq!(h.call("pair", &[]).unwrap_err().kind, ErrorKind::Host);
    assert_eq!(h.call("tostring", &[Value::Nil]).unwrap(), Value::from("nil"));
    let err = h.load("broken.lua", "function (").unwrap_err();
    assert_eq!((err.kind, err.chunk.as_str()), (ErrorKind::Syntax, "broken.lua"));
}

// ---------------------------------------------------------------- snapshot / restore

const STATE: &str = r#"
    Variable = {Gold = 15, ["has token"] = true, Name = "Ana", Ratio = 0.25, Big = 1/0}
    Actor = {Player = {Name = "Ana", Met = true, Inventory = {"key", "map", [10] = "coin"}}}
    Actor.Player.describe = function() return "a function is code, not state" end
"#;

#[test]
fn snapshot_and_restore_round_trip() {
    let mut h = host();
    exec(&mut h, STATE).unwrap();
    let snapshot = h.snapshot(&["Variable", "Actor", "Missing"]).unwrap();
    assert_eq!(snapshot.globals["Missing"], SnapshotValue::Nil);

    let json = serde_json::to_string(&snapshot).unwrap();
    let back: Snapshot = serde_json::from_str(&json).unwrap();
    assert_eq!(back, snapshot, "the snapshot survives JSON, infinity included");
    assert_eq!(serde_json::to_string(&h.snapshot(&["Variable", "Actor", "Missing"]).unwrap()).unwrap(), json);

    exec(&mut h, "alias = Actor.Player; Variable.Gold = 0; Variable.Extra = 1; Actor.Player.Met = nil; Missing = 5")
        .unwrap();
    h.restore(&back).unwrap();
    assert!(eval(&mut h, "Variable.Gold == 15 and Variable.Extra == nil and Variable['has token'] == true").unwrap());
    assert!(eval(&mut h, "Variable.Big == 1/0 and Variable.Ratio == 0.25 and Missing == nil").unwrap());
    assert!(eval(&mut h, "Actor.Player.Met == true and Actor.Player.Inventory[10] == 'coin'").unwrap());
    assert!(eval(&mut h, "alias == Actor.Player and alias.describe() ~= nil").unwrap(), "restored in place");

    let mut fresh = host();
    fresh.restore(&back).unwrap();
    assert_eq!(fresh.snapshot(&["Variable", "Actor", "Missing"]).unwrap(), snapshot);
    assert!(eval(&mut fresh, "#Actor.Player.Inventory == 2 and Actor.Player.describe == nil").unwrap());
}

#[test]
fn snapshots_refuse_cycles_and_code() {
    let mut h = host();
    exec(&mut h, "Loop = {} Loop.self = Loop  Shared = {} Dag = {a = Shared, b = Shared}  function f() end").unwrap();
    assert_eq!(h.snapshot(&["Loop"]).unwrap_err().kind, ErrorKind::Host);
    assert_eq!(h.snapshot(&["f"]).unwrap_err().kind, ErrorKind::Host);
    assert!(h.snapshot(&["Dag"]).is_ok(), "a table reached twice is not a cycle");
    exec(&mut h, "Keyed = {[{}] = 1}").unwrap();
    assert_eq!(h.snapshot(&["Keyed"]).unwrap_err().kind, ErrorKind::Host);
    exec(&mut h, "local t = {} Deep = t for i = 1, 1000 do t.next = {} t = t.next end").unwrap();
    assert_eq!(h.snapshot(&["Deep"]).unwrap_err().kind, ErrorKind::Host);
    exec(&mut h, "local t = {} for i = 1, 40 do t = {t, t} end Wide = t").unwrap();
    assert_eq!(h.snapshot(&["Wide"]).unwrap_err().kind, ErrorKind::Host, "exponential sharing is bounded");
}

// ---------------------------------------------------------------- number formatting against real Lua

#[test]
fn format_number_matches_lua_tostring() {
    let mut h = host();
    let mut values = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        5.0,
        0.1,
        0.5,
        1.0 / 3.0,
        2.0 / 3.0,
        100.0,
        1e14,
        1e15,
        1e16,
        123456789012345.0,
        99999999999999.0,
        999999999999999.0,
        12345678901234567890.0,
        1e-4,
        1e-5,
        0.000123456789,
        std::f64::consts::PI,
        3.14159265358979e10,
        1e100,
        -1e-100,
        1e308,
        f64::MAX,
        f64::MIN_POSITIVE,
        5e-324,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        2f64.powi(53),
        2f64.powi(63),
        100000000000005.0,
        0.30000000000000004,
        1.00000000000005,
        4.35,
        2.675,
    ];
    let mut x = 0.7_f64;
    for i in 0..400 {
        x = (x * 9301.0 + 49297.0) % 233280.0;
        let scale = 10f64.powi(i % 40 - 20);
        values.push(x * scale / 233280.0);
        values.push(-(x * scale));
        values.push((x * 1e6).round() / 1e3);
    }
    for v in values {
        let lua = h.call("tostring", &[Value::Number(v)]).unwrap();
        assert_eq!(Value::String(format_number(v)), lua, "tostring({v:e})");
    }
    // NaN as Lua computes it.
    let lua_nan = value_of(&mut h, "tostring(0/0)");
    let computed = value_of(&mut h, "0/0");
    match computed {
        Value::Number(n) => assert_eq!(Value::String(format_number(n)), lua_nan),
        other => panic!("0/0 is {other:?}"),
    }
    assert_eq!(Value::Number(12.0).to_string(), "12");
    assert_eq!(Value::Nil.to_string(), "nil");
}

#[test]
fn tens_of_thousands_of_chunks_compile_and_run() {
    // Each chunk once held a handle on mlua's auxiliary stack, which ran out after ~8,000.
    let mut host = stagehand_lua::Sandbox::new(stagehand_lua::Limits::default(), 1).expect("a sandbox");
    let chunks: Vec<_> = (0..30_000)
        .map(|i| host.compile(&format!("c{i}"), &format!("{i} % 2 == 0"), ChunkKind::Condition).expect("compiles"))
        .collect();
    for (i, chunk) in chunks.iter().enumerate().step_by(997) {
        assert_eq!(host.evaluate(*chunk).expect("evaluates"), i % 2 == 0);
    }
    assert_eq!(host.compiled_chunks(), 30_000);
}
