//! The sandbox's `string.find`, `match`, `gmatch` and `gsub` (a Rust matcher charged to the instruction
//! budget) against Lua 5.1's own C functions, which a plain `mlua::Lua` in this test still has: a table of
//! hand-written cases covering every feature, and generated patterns and subjects over a small alphabet.
//! Results (values and their types) and error messages must be identical. Then the pathological patterns
//! that would hang the C matcher: they now stop with a budget error once they have done the budget's worth of work (counted, not timed), and the host goes on working.

use mlua::{Lua, LuaOptions, StdLib};
use proptest::prelude::*;
use stagehand_lua::{ChunkKind, ErrorKind, Limits, Sandbox, ScriptError, ScriptHost, Value};

/// Helpers defined in both states: `probe(f)` runs `f` protected and describes what it returned or raised.
const HELPERS: &str = r##"
local function esc(s)
  local t = {}
  for i = 1, #s do
    local b = s:byte(i)
    if b >= 32 and b < 127 and b ~= 92 and b ~= 124 then t[#t + 1] = string.char(b) else t[#t + 1] = "\\" .. b end
  end
  return table.concat(t)
end
function ser(...)
  local n = select("#", ...)
  local t = { tostring(n) }
  for i = 1, n do
    local v = select(i, ...)
    local ty = type(v)
    if ty == "string" then t[#t + 1] = "s:" .. esc(v)
    elseif ty == "number" then t[#t + 1] = "n:" .. tostring(v)
    elseif ty == "table" then t[#t + 1] = "table"
    else t[#t + 1] = ty .. ":" .. tostring(v) end
  end
  return table.concat(t, "|")
end
function pack(...) return { n = select("#", ...), ... } end
-- `f` returns its results packed: Lua 5.1's pcall pushes its status without making room for it.
function probe(f)
  local ok, r = pcall(f)
  if not ok then return ser(false, r) end
  return ser(true, unpack(r, 1, r.n))
end
function each(s, p)
  local it = string.gmatch(s, p)
  local out = {}
  for _ = 1, 60 do
    local r = pack(it())
    if r.n == 0 or r[1] == nil then out[#out + 1] = "end(" .. r.n .. ")" break end
    out[#out + 1] = ser(unpack(r, 1, r.n))
  end
  return table.concat(out, " ; ")
end
"##;

/// The C implementation: a plain Lua 5.1 state with the standard string library.
struct Reference(Lua);

impl Reference {
    fn new() -> Reference {
        let lua = Lua::new_with(StdLib::STRING | StdLib::TABLE | StdLib::MATH, LuaOptions::new()).expect("lua");
        lua.load(HELPERS).set_name("=helpers").exec().expect("helpers");
        Reference(lua)
    }

    fn probe(&self, expression: &str) -> String {
        let source = format!("RESULT = probe(function() return pack({expression}) end)");
        match self.0.load(source).set_name("=case").exec() {
            Ok(()) => self.0.globals().get::<String>("RESULT").expect("a result"),
            Err(e) => format!("host error: {e}"),
        }
    }
}

/// The sandbox, with a budget that generated cases never reach.
struct Subject(Sandbox);

impl Subject {
    fn new() -> Subject {
        let mut host = Sandbox::new(Limits { instructions: 1 << 40, memory_bytes: 0 }, 1).expect("sandbox");
        host.load("helpers", HELPERS).expect("helpers");
        Subject(host)
    }

    fn probe(&mut self, expression: &str) -> String {
        let source = format!("RESULT = probe(function() return pack({expression}) end)");
        match self.0.load("case", &source) {
            Ok(()) => match self.0.get(&["RESULT".into()]) {
                Ok(Value::String(s)) => s,
                other => format!("host error: {other:?}"),
            },
            Err(e) => format!("host error: {e}"),
        }
    }
}

/// A Lua string literal for any bytes.
fn q(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b == b' ' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("\\{b:03}"));
        }
    }
    out.push('"');
    out
}

/// Runs every expression in both implementations; returns the mismatches.
fn differences(expressions: &[String]) -> Vec<String> {
    let reference = Reference::new();
    let mut subject = Subject::new();
    let mut out = Vec::new();
    for expression in expressions {
        let want = reference.probe(expression);
        let got = subject.probe(expression);
        if want != got || want.starts_with("host error") {
            out.push(format!("{expression}\n    C:    {want}\n    Rust: {got}"));
        }
    }
    out
}

fn assert_same(expressions: &[String]) {
    let diffs = differences(expressions);
    assert!(diffs.is_empty(), "{} of {} cases differ:\n{}", diffs.len(), expressions.len(), diffs.join("\n"));
}

/// Patterns covering every feature of §5.4.1, Lua 5.1's quirks, and every malformed-pattern error.
const PATTERNS: &[&[u8]] = &[
    b"",
    b"a",
    b"ab",
    b"abc",
    b".",
    b"..",
    b"a.",
    b"%a",
    b"%A",
    b"%c",
    b"%C",
    b"%d",
    b"%D",
    b"%l",
    b"%L",
    b"%p",
    b"%P",
    b"%s",
    b"%S",
    b"%u",
    b"%U",
    b"%w",
    b"%W",
    b"%x",
    b"%X",
    b"%z",
    b"%Z",
    b"%.",
    b"%%",
    b"%]",
    b"%(",
    b"%q",
    b"%a+",
    b"%d+",
    b"%s*",
    b"%w+",
    b"%x+",
    b"%p+",
    b"%u%l*",
    b"[abc]",
    b"[^abc]",
    b"[a-c]",
    b"[^a-c]",
    b"[%a]",
    b"[%d%s]",
    b"[^%w]",
    b"[a-]",
    b"[-a]",
    b"[]]",
    b"[^]]",
    b"[%]]",
    b"[a%-z]",
    b"[z-a]",
    b"[%a-z]",
    b"[.]",
    b"[a-c%d]+",
    b"[%w_]+",
    b"[^%s]+",
    b"[%z]",
    b"[^%z]+",
    b"[\x80-\xff]+",
    b"[]",
    b"[^]",
    b"[a",
    b"[^",
    b"[%",
    b"[a-",
    b"[a%]",
    b"a*",
    b"a+",
    b"a-",
    b"a?",
    b".*",
    b".-",
    b".+",
    b".?",
    b"a*b",
    b"a-b",
    b"a+b",
    b"a?b",
    b"[ab]*c",
    b"%a+%d*",
    b"x*",
    b"x+",
    b"x-",
    b"x?",
    b".-b",
    b".-$",
    b"a**",
    b"a*?",
    b"a-+",
    b"*",
    b"+a",
    b"-",
    b"?",
    b"^a",
    b"^a*",
    b"^",
    b"$",
    b"a$",
    b"^$",
    b"a$b",
    b"$a",
    b"^^",
    b"a^",
    b"$$",
    b"^.-$",
    b"(a)",
    b"(a)(b)",
    b"()",
    b"()a()",
    b"(a*)",
    b"(a-)b",
    b"((a)(b))",
    b"(a)%1",
    b"(%a+) %1",
    b"(.)%1",
    b"()%1",
    b"(a*(.)%w(%s*))",
    b"%1",
    b"(a)%2",
    b"%0",
    b"(a%1)",
    b"(a)(b)%2%1",
    b"(.-)%1",
    b"(h)(e)(l)(l)(o)",
    b"%bxy",
    b"%b()",
    b"%b((",
    b"%b",
    b"%bx",
    b"(%b())",
    b"%b()+",
    b"%f[%a]",
    b"%f[%a]%a+",
    b"%f[^%a]",
    b"%f[%z]",
    b"%f[^%z]",
    b"%fa",
    b"%f[a",
    b"(",
    b")",
    b"(()",
    b"a)",
    b"(a",
    b"(a))",
    b"%",
    b"a%",
    b"(a%",
    b"a\0b",
    b"a\0.",
    b".\0",
    b"[a\0]",
    b"%\0",
    b"a$\0b",
    b"\xff",
    b"%\xff",
];

/// Subjects for the patterns above.
const SUBJECTS: &[&[u8]] = &[
    b"",
    b"a",
    b"aaa",
    b"abc",
    b"aab ab bb",
    b"hello world 123",
    b"x(y(z))w(",
    b"  key = value  ",
    b"THE (quick) fox",
    b"a\0b\0c",
    b"ab$^cd]-%",
    b"\xff\x80abc",
    b"xyxxyy",
    b"hello hello",
    b"0x1F, 2e3;\t\n\x0b\x7f",
];

fn find(s: &[u8], p: &[u8]) -> String {
    format!("string.find({}, {})", q(s), q(p))
}

#[test]
fn every_pattern_against_every_subject() {
    let mut cases = Vec::new();
    for p in PATTERNS {
        for s in SUBJECTS {
            cases.push(find(s, p));
            cases.push(format!("string.match({}, {})", q(s), q(p)));
            cases.push(format!("each({}, {})", q(s), q(p)));
            cases.push(format!("string.gsub({}, {}, \"<%0>\")", q(s), q(p)));
        }
    }
    assert!(cases.len() > 8_000, "{}", cases.len());
    assert_same(&cases);
}

#[test]
fn find_init_and_plain() {
    let mut cases = Vec::new();
    for init in [
        "0", "1", "2", "-1", "-2", "-3", "-4", "-100", "3", "4", "5", "100", "2.9", "-1.5", "'2'", "'0x2'", "1e300",
        "-1e300", "0/0", "nil",
    ] {
        for (s, p) in [("abc", "b"), ("abc", ""), ("abc", "c$"), ("abc", "^b"), ("aaa", "a"), ("abc", "%a"), ("", "")] {
            cases.push(format!("string.find({s:?}, {p:?}, {init})"));
            cases.push(format!("string.match({s:?}, {p:?}, {init})"));
            cases.push(format!("string.find({s:?}, {p:?}, {init}, true)"));
        }
    }
    for (s, p, rest) in [
        ("a.b", ".", "1, true"),
        ("a.b", ".", "1, false"),
        ("a.b", ".", "1, nil"),
        ("a.b", ".", "1, 0"),
        ("a+b", "+", "1, 'yes'"),
        ("a%b", "%", "1, true"),
        ("a(b", "(", "1, true"),
        ("a[b", "[", "1, true"),
        ("x^y", "^y", "1, true"),
        ("x^y", "^", "1, true"),
        ("aaab", "aab", "nil, true"),
        ("abcabc", "bc", "3"),
        ("abcabc", "]", "1"),
        ("a]b", "]", "1"),
        ("a)b", ")", "1"),
        ("abc", "abcd", "1, true"),
        ("abc", "", "4, true"),
        ("abc", "", "10, true"),
    ] {
        cases.push(format!("string.find({s:?}, {p:?}, {rest})"));
    }
    // A plain search sees the bytes after a NUL; a pattern search stops there.
    cases.push(find(b"xa\0b", b"a\0b"));
    cases.push(find(b"xa\0c", b"a\0b"));
    cases.push(find(b"xa\0c", b"a\0b."));
    cases.push(format!("string.find({}, {}, 1, true)", q(b"xa\0c"), q(b"a\0c")));
    assert_same(&cases);
}

#[test]
fn argument_errors_and_conversions() {
    let cases: Vec<String> = [
        "string.find()",
        "string.find('a')",
        "string.find(nil, 'x')",
        "string.find('x', nil)",
        "string.find({}, 'x')",
        "string.find('x', true)",
        "string.find('x', 'x', {})",
        "string.find('x', 'x', 'z')",
        "string.find(12345, 3)",
        "string.find(1.5, '.')",
        "string.find(1e100, 'e')",
        "string.match()",
        "string.match('x')",
        "string.match(12, '%d')",
        "string.match('x', 'x', false)",
        "string.gmatch()",
        "string.gmatch('x')",
        "string.gmatch(nil, 'x')",
        "each(123, '%d')",
        "each('a1b2', 2)",
        "string.gsub()",
        "string.gsub('x')",
        "string.gsub('x', 'x')",
        "string.gsub('x', 'x', nil)",
        "string.gsub('x', 'x', true)",
        "string.gsub('x', 'x', nil, {})",
        "string.gsub('x', 'x', 'y', {})",
        "string.gsub('x', 'x', 'y', 'z')",
        "string.gsub('x', 'x', 'y', '1')",
        "string.gsub(123, 2, 9)",
        "string.gsub(123, 2, 9.5)",
        "string.gsub('abc', '%w', 1e15)",
        "string.gsub('abc', '%w', 0.1)",
        "string.gsub(nil, 'x', 'y')",
        "string.gsub('x', {}, 'y')",
        // Called by pcall itself, a C function raises its errors without a position.
        "select(2, pcall(string.find, 'x', '('))",
        "select(2, pcall(string.match, 'x', '%'))",
        "select(2, pcall(string.gsub, 'x', 'x', '%1%2'))",
        "select(2, pcall(string.gsub, 'x', 'x', function() return {} end))",
        "select(2, pcall(string.gsub, 'x', '(', {}))",
        "select(2, pcall(string.gsub, 'x', '(', print))",
        "select(2, pcall(string.gmatch('x', '(')))",
        "select(2, pcall(string.gmatch('x', '[')))",
        // Called from a script, at the calling line.
        "(function() for a in string.gmatch('x', '(') do end end)()",
        "(function()\n\n local x = string.gsub('x', 'x', {x = true})\n end)()",
        "(function()\n local x = string.gsub('x', 'x', function() return {} end)\n end)()",
        "(function()\n local x = string.gsub('x', 'x', '%9')\n end)()",
        "(function()\n local x = string.find('x', '%f')\n end)()",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_same(&cases);
}

#[test]
fn gsub_replacements_and_limits() {
    let mut cases = Vec::new();
    for repl in [
        r#""%1""#,
        r#""%2""#,
        r#""%0%0""#,
        r#""%%""#,
        r#""%""#,
        r#""a%""#,
        r#""%a%.%%%-""#,
        r#""[%1|%2]""#,
        r#""%9""#,
        r#""x\0y%1""#,
        r#""""#,
        "42",
        "-1.5",
        "{}",
        "{a = 'A', b = false, c = 3, ab = 'AB'}",
        "setmetatable({}, {__index = function(t, k) return k:upper() end})",
        "setmetatable({}, {__index = function(t, k) error('index ' .. k) end})",
        "{a = {}}",
        "{a = true}",
        "function(...) return select('#', ...) end",
        "function(a, b) return b end",
        "function(a) return nil end",
        "function(a) return false end",
        "function(a) return a .. a, 'ignored' end",
        "function(a) return {} end",
        "function(a) return true end",
        "function(a) return 7 end",
        "function(a) return 1e100 end",
        "function(a) error('boom') end",
        "function(a) error({}) end",
        "function(a) error('plain', 0) end",
        "function(a) return string.gsub(a, '.', '%0%0') end",
        "function(a) return (string.gsub(a, '.', function(c) return c:upper() end)) end",
        "string.upper",
        "tostring",
    ] {
        for (s, p) in [
            ("hello world", "o"),
            ("hello world", "(o)"),
            ("hello world", "(l)(l)"),
            ("hello world", "()"),
            ("hello world", "(l+)()"),
            ("hello world", "%w+"),
            ("hello world", ""),
            ("hello world", "x*"),
            ("abc", "^a"),
            ("abc", "^b"),
            ("abc", "^"),
            ("", ""),
            ("", "^"),
            ("abc", "$"),
            ("abc", "(a)(b"),
            ("abc", "(a"),
            ("ab ab", "(a)(b)"),
            ("abc", "%"),
            ("a,b,,c", "[^,]*"),
            ("aaa", "a-"),
        ] {
            cases.push(format!("string.gsub({s:?}, {p:?}, {repl})"));
        }
    }
    for n in ["0", "1", "2", "-1", "2.7", "'1'", "nil", "1e10", "-1e10", "0/0"] {
        cases.push(format!("string.gsub('a a a a', 'a', 'b', {n})"));
        cases.push(format!("string.gsub('abc', '', '-', {n})"));
        cases.push(format!("string.gsub('abc', '(', '-', {n})"));
        cases.push(format!("string.gsub('abc', '%w', function(c) return c .. c end, {n})"));
    }
    assert_same(&cases);
}

#[test]
fn gmatch_iteration() {
    let mut cases = Vec::new();
    for (s, p) in [
        ("hello world from lua", "%a+"),
        ("abc", ""),
        ("abc", "%a*"),
        ("abc", "a*"),
        ("abc", ".-"),
        ("k1=v1, k2=v2", "(%w+)=(%w+)"),
        ("abc", "()"),
        ("abc", "()(.)()"),
        ("a^b^", "^b"),
        ("^a", "^a"),
        ("abc", "^"),
        ("aaa", "a-"),
        ("abab", "(a)(b"),
        ("x(y)z(w)", "%b()"),
        ("abc", "%"),
        ("", ""),
        ("", "x"),
        ("THE (quick) fox", "%f[%a]%a+"),
    ] {
        cases.push(format!("each({s:?}, {p:?})"));
    }
    // The iterator ignores its arguments, keeps its position, and says nothing (not nil) when done.
    cases.push("(function() local it = string.gmatch('ab', '.') return it(), it(1, 2), it(), it() end)()".into());
    cases.push("select('#', string.gmatch('', 'x')())".into());
    cases.push("type(string.gmatch('a', 'a'))".into());
    cases.push("type(string.gfind)".into());
    assert_same(&cases);
}

#[test]
fn captures_limits_and_odd_corners() {
    let many = |n: usize| format!("string.find('abc', {:?})", "()".repeat(n));
    let mut cases = vec![many(31), many(32), many(33), many(40)];
    cases.push(format!("string.match({:?}, {:?})", "a".repeat(40), "(a)".repeat(32)));
    cases.push(format!("string.match({:?}, {:?})", "a".repeat(40), "(a)".repeat(33)));
    cases.push(format!("string.match({:?}, {:?})", "ab".repeat(5), "(a(b))".repeat(5)));
    cases.push(format!("string.find({}, '%z')", q(b"a\0")));
    cases.push(format!("string.find({}, '%Z+')", q(b"ab\0")));
    cases.push(format!("string.find({}, '[%z]+')", q(b"a\0\0b")));
    cases.push(format!("string.gsub({}, '%z', '0')", q(b"a\0b\0")));
    cases.push(format!("string.gsub({}, '.', '%0')", q(b"a\0b")));
    cases.push("string.find('a' .. string.rep('b', 300) .. 'c', 'a(b*)c')".into());
    cases.push("string.find(string.rep('a', 600), string.rep('a?', 512))".into());
    cases.push("string.find(string.rep('a', 600), string.rep('a?', 300) .. string.rep('a', 300))".into());
    cases.push("string.match(string.rep('(', 100) .. string.rep(')', 100), '%b()')".into());
    cases.push("string.match(string.rep('(', 101) .. string.rep(')', 100), '%b()')".into());
    cases.push("string.match('a' .. string.rep('b', 1000), '(.-)b$')".into());
    cases.push("string.gsub(string.rep('ab', 1000), 'a(b)', function(b) return b end)".into());
    for c in 0..=255u8 {
        let class = [b"%a", b"%c", b"%d", b"%l", b"%p", b"%s", b"%u", b"%w", b"%x"];
        for cl in class {
            cases.push(format!("string.find({}, {}) or 0", q(&[c]), q(cl)));
        }
        cases.push(format!("string.find({}, {}) or 0", q(&[c]), q(&[b'%', c])));
        cases.push(format!("string.find({}, {}) or 0", q(&[c]), q(&[b'[', b'%', c, b']'])));
    }
    assert_same(&cases);
}

// ---------------------------------------------------------------- generated

fn pattern_token() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a", "b", "c", ".", "%a", "%d", "%s", "%w", "%A", "%%", "%(", "[ab]", "[^a]", "[a-c]", "[%d]", "[]]", "*", "+",
        "-", "?", "(", ")", "()", "%1", "%2", "%b()", "%bab", "^", "$", "%f[a]", "%f[^a]", "[", "]", "%", "%z",
    ])
}

fn subject() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec!['a', 'b', 'c', '1', ' ', '(', ')', '^', '$', '%', ']', '\0']),
        0..14,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

fn generated_pattern() -> impl Strategy<Value = String> {
    prop::collection::vec(pattern_token(), 0..8).prop_map(|tokens| tokens.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn generated_patterns_agree_with_c(
        cases in prop::collection::vec((subject(), generated_pattern(), -3i32..5), 8)
    ) {
        let mut expressions = Vec::new();
        for (s, p, init) in &cases {
            let (s, p) = (q(s.as_bytes()), q(p.as_bytes()));
            expressions.push(format!("string.find({s}, {p}, {init})"));
            expressions.push(format!("string.match({s}, {p})"));
            expressions.push(format!("each({s}, {p})"));
            expressions.push(format!("string.gsub({s}, {p}, '<%1>', {init})"));
            expressions.push(format!("string.gsub({s}, {p}, function(...) return ser(...) end)"));
            expressions.push(format!("string.gsub({s}, {p}, {{a = 'A', [''] = 'E'}})"));
        }
        let diffs = differences(&expressions);
        prop_assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    }
}

// ---------------------------------------------------------------- the budget

fn run(host: &mut Sandbox, source: &str) -> Result<(), ScriptError> {
    let chunk = host.compile("script", source, ChunkKind::Script)?;
    host.run(chunk)
}

/// The most a run may count past its budget before the stop: one stride of the instruction hook
/// (the pattern functions never charge past what remains).
const HOOK_STRIDE: u64 = 1000;

/// The run stopped once it had done its budget's worth of work, and not much more: the work is
/// counted, so the check holds however loaded the machine is.
fn assert_stopped_by_the_budget(host: &Sandbox, what: &str) {
    let (used, budget) = (host.instructions_used(), host.limits().instructions);
    assert!(
        used >= budget && used <= budget + HOOK_STRIDE,
        "{what}: {used} steps counted against a budget of {budget}"
    );
}

fn assert_stopped_quickly(host: &mut Sandbox, source: &str) {
    let err = run(host, source).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Budget, "{source}: {err}");
    assert_eq!(err.message, format!("instruction budget of {} exhausted", host.limits().instructions));
    assert_stopped_by_the_budget(host, source);
    // The host works afterwards, patterns included.
    run(host, "assert(string.find('hello', 'l+') == 3)").unwrap();
    run(host, "x = select(2, string.gsub('a b c', '%a', '%0%0'))").unwrap();
    assert_eq!(host.get(&["x".into()]).unwrap(), Value::Number(3.0));
}

/// Scripts whose pattern calls would run for minutes to ages in C.
const PATHOLOGICAL: &[&str] = &[
    "string.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')",
    "string.match(string.rep('a', 40), string.rep('a*', 40) .. 'b')",
    "string.gsub(string.rep('a', 40), string.rep('a*', 40) .. 'b', '')",
    "for w in string.gmatch(string.rep('a', 40), string.rep('a*', 40) .. 'b') do end",
    "string.find(string.rep('a', 40), string.rep('a-', 40) .. 'b')",
    "string.find(string.rep('a', 40), string.rep('(a?)', 30) .. 'b')",
    "local s = string.rep('x', 1024 * 1024) string.find(s, '.-.-.-y')",
    "local s = string.rep('x', 1024 * 1024) string.gsub(s, '.-y', '')",
    "local s = string.rep('(', 1024 * 1024) string.find(s, '%b()')",
    "local s = string.rep('ab', 1024 * 1024) string.find(s, '(.-)%1b$')",
    "string.gsub(string.rep('a', 40), string.rep('a*', 40) .. 'b', function() end)",
];

#[test]
fn pathological_patterns_stop_with_the_budget() {
    let mut host = Sandbox::new(Limits::default(), 1).unwrap();
    for source in PATHOLOGICAL {
        assert_stopped_quickly(&mut host, source);
    }
}

#[test]
fn pcall_cannot_catch_a_pattern_budget_stop() {
    let mut host = Sandbox::new(Limits::default(), 1).unwrap();
    for source in PATHOLOGICAL {
        let caught = format!("local ok = pcall(function() {source} end) ok = xpcall(function() {source} end, print)");
        assert_stopped_quickly(&mut host, &caught);
        assert_stopped_quickly(
            &mut host,
            &format!("pcall(string.find, string.rep('a', 40), string.rep('a*', 40) .. 'b') {source}"),
        );
    }
    assert!(host.take_log().is_empty(), "the handler never ran");
}

#[test]
fn budgets_stop_patterns_at_any_size() {
    // A tiny budget, and a large one: the stop comes in both, after about that many steps.
    for instructions in [1, 10, 1_000, 5_000_000] {
        let mut host = Sandbox::new(Limits { instructions, memory_bytes: 64 << 20 }, 1).unwrap();
        let err = run(&mut host, PATHOLOGICAL[0]).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Budget, "{err}");
        assert_stopped_by_the_budget(&host, &format!("a budget of {instructions}"));
    }
}

#[test]
fn pattern_steps_are_charged_to_the_run() {
    let mut host = Sandbox::new(Limits { instructions: 1_000_000, memory_bytes: 0 }, 1).unwrap();
    run(&mut host, "local s = string.rep('a', 100000) assert(string.find(s, 'b') == nil)").unwrap();
    let plain = host.instructions_used();
    run(&mut host, "local s = string.rep('a', 100000) assert(string.find(s, '[b]') == nil)").unwrap();
    let scanned = host.instructions_used();
    assert!(scanned >= 100_000 && scanned > plain, "plain {plain}, pattern {scanned}");
    // Ordinary work stays cheap.
    run(&mut host, "for i = 1, 100 do local k, v = string.match('key = value', '(%w+)%s*=%s*(%w+)') end").unwrap();
    assert!(host.instructions_used() < 20_000, "{}", host.instructions_used());
}

#[test]
fn a_huge_gsub_result_meets_the_memory_cap() {
    let mut host = Sandbox::new(Limits { instructions: 100_000_000, memory_bytes: 4 << 20 }, 1).unwrap();
    let err =
        run(&mut host, "local s = string.rep('a', 100000) s = string.gsub(s, 'a', string.rep('b', 1000))").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
    let err =
        run(&mut host, "pcall(string.gsub, string.rep('a', 100000), 'a', string.rep('b', 1000)) x = 1").unwrap_err();
    assert_eq!(err.kind, ErrorKind::Memory, "{err}");
    run(&mut host, "assert(string.gsub('abc', 'b', 'x') == 'axc')").unwrap();
}

#[test]
fn pattern_length_cap_still_applies() {
    let mut host = Sandbox::new(Limits::default(), 1).unwrap();
    let err = run(&mut host, "string.match('aaa', string.rep('a?', 1000))").unwrap_err();
    assert!(err.message.contains("bad argument #2 to 'match' (pattern too long)"), "{}", err.message);
    let err = run(&mut host, "string.gmatch('aaa', string.rep('a?', 1000))").unwrap_err();
    assert!(err.message.contains("bad argument #2 to 'gmatch' (pattern too long)"), "{}", err.message);
}

/// The differences from C that the crate documents, all in error text: pinned so the documentation stays
/// true.
#[test]
fn documented_differences_from_c() {
    let reference = Reference::new();
    let mut subject = Subject::new();
    let tail = "(function() local ok, e = pcall(function() return string.find('x', '(') end) return e end)()";
    assert_eq!(reference.probe(tail), "2|boolean:true|s:case:1: unfinished capture");
    assert_eq!(subject.probe(tail), "2|boolean:true|s:unfinished capture");
    let direct = "select(2, pcall(string.find))";
    assert_eq!(reference.probe(direct), "2|boolean:true|s:bad argument #1 to '?' (string expected, got no value)");
    assert_eq!(subject.probe(direct), "2|boolean:true|s:bad argument #1 to 'find' (string expected, got no value)");
    let method = "select(2, pcall(function() return ('x'):find({}) end))";
    assert_eq!(
        reference.probe(method),
        "2|boolean:true|s:case:1: bad argument #1 to 'find' (string expected, got table)"
    );
    assert_eq!(subject.probe(method), "2|boolean:true|s:bad argument #2 to 'find' (string expected, got table)");
    // Not in tail position, the same message, position included.
    let kept = "select(2, pcall(function() local a = ('x'):find('(') end))";
    assert_eq!(reference.probe(kept), subject.probe(kept));
}

/// Lua 5.1.5 has the frontier pattern `%f[set]` (undocumented until 5.2) and its error message; so does the
/// sandbox.
#[test]
fn the_frontier_pattern_exists_in_lua_51() {
    let reference = Reference::new();
    let mut subject = Subject::new();
    for (expression, expected) in [
        ("string.find('THE (quick) fox', '%f[%a]%a+', 4)", "3|boolean:true|n:6|n:10"),
        ("string.gsub('hello world', '%f[%w]%w+', 'X')", "3|boolean:true|s:X X|n:2"),
        ("select(2, pcall(string.find, 'x', '%fx'))", "2|boolean:true|s:missing '[' after '%f' in pattern"),
    ] {
        assert_eq!(reference.probe(expression), expected, "{expression}");
        assert_eq!(subject.probe(expression), expected, "{expression}");
    }
}
