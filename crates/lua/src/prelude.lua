-- Stagehand sandbox bootstrap. Runs once, with the host's private functions as arguments, before any
-- untrusted code; the host then removes every global that is not on its allowlist.
--
-- The original library functions are reached through the private table `raw` rather than upvalues,
-- so Lua names them in argument errors ("bad argument #1 to 'find'"). An error raised inside a wrapper
-- carries a position in this chunk; the host removes it from the messages it reports.
local emit, draw, reseed, fatal, max_pattern, patterns, charge, bytes_a_step = ...
local G = _G
local error, select, type, unpack, tonumber = error, select, type, unpack, tonumber
local concat = table.concat
-- Passes its arguments on: `return pass(f(...))` keeps the call out of tail position, so the
-- wrapper's frame stays and errors raised at level 2 or 3 land on the script's line.
local function pass(...) return ... end
local string = string

local raw = {
  pcall = pcall,
  xpcall = xpcall,
  rep = string.rep,
}

-- pcall and xpcall must not swallow the host's stop signals: once the budget is spent or memory ran
-- out, the error is raised again past every protected call. The protected function's results travel
-- packed in one table: Lua 5.1's own pcall pushes its status after a callee's results without making
-- room for it, which trips Lua's API check when a callee returns more than 20 values.
do
  local function pack(...)
    return { n = select("#", ...), ... }
  end
  local function call_packed(f, ...)
    return pack(f(...))
  end
  local function finish(ok, packed)
    if not ok then
      if fatal(packed) then
        error(packed, 0)
      end
      return false, packed
    end
    return true, unpack(packed, 1, packed.n)
  end
  G.pcall = function(...)
    if select("#", ...) == 0 then
      error("bad argument #1 to 'pcall' (value expected)", 2)
    end
    return finish(raw.pcall(call_packed, ...))
  end
  -- A message handler runs inside the failing call. When the failure is the budget hook's own error,
  -- Lua runs the handler with hooks disabled, so an endless handler would never be stopped: the
  -- handler is skipped for the host's stop signals.
  G.xpcall = function(f, ...)
    if select("#", ...) == 0 then
      error("bad argument #2 to 'xpcall' (value expected)", 2)
    end
    local handler = ...
    local guarded = handler
    if type(handler) == "function" then
      guarded = function(e)
        if fatal(e) then
          return e
        end
        return handler(e)
      end
    end
    -- A handler that is not a function makes Lua report "error in error handling" without running code.
    return finish(raw.xpcall(function() return pack(f()) end, guarded))
  end
end

-- print writes to the host's captured log, joining tostring() of each argument with tabs (as Lua 5.1).
G.print = function(...)
  local parts = {}
  for i = 1, select("#", ...) do
    local s = G.tostring((select(i, ...)))
    if type(s) ~= "string" then
      error("'tostring' must return a string to 'print'", 2)
    end
    parts[i] = s
  end
  local line = concat(parts, "\t")
  local stop = charge(#line / bytes_a_step)
  if stop then error(stop, 0) end
  emit(line)
end

-- math.random and math.randomseed draw from the host's seeded generator. Errors are raised at the
-- caller's line (level 2), where Lua 5.1's C functions report them.
do
  local math = G.math
  math.random = function(...)
    local value, message = draw(...)
    if message then error(message, 2) end
    return value
  end
  math.randomseed = function(...)
    local message = reseed(...)
    if message then error(message, 2) end
  end
end

-- Lua's pattern functions run in C, where the instruction hook cannot see them: a pattern that
-- backtracks badly could run for hours. They are replaced by the host's matcher (`patterns`), which
-- charges its steps to the same budget and answers `true, results...` or `false, message`, where the
-- message already carries the position Lua's C function would give it (the wrapper's caller's line).
-- Patterns longer than max_pattern bytes are refused.
do
  local sub = string.sub
  local p_find, p_match, p_gmatch, p_gmatch_next, p_gsub, p_gsub_next, where =
    patterns.find, patterns.match, patterns.gmatch, patterns.gmatch_next, patterns.gsub, patterns.gsub_next,
    patterns.where
  local function check(name, p)
    if type(p) == "string" and #p > max_pattern then
      error("bad argument #2 to '" .. name .. "' (pattern too long)", 3)
    end
  end
  local function finish(ok, ...)
    if not ok then error((...), 0) end
    return ...
  end
  string.find = function(...)
    check("find", (select(2, ...)))
    return pass(finish(p_find(...)))
  end
  string.match = function(...)
    check("match", (select(2, ...)))
    return pass(finish(p_match(...)))
  end
  string.gmatch = function(...)
    check("gmatch", (select(2, ...)))
    local s, p = finish(p_gmatch(...))
    local pos = 0
    local function advance(ok, next_pos, ...)
      if not ok then error(next_pos, 0) end
      if next_pos then pos = next_pos end
      return ...
    end
    return function() return pass(advance(p_gmatch_next(s, p, pos))) end
  end
  -- gsub with a function or table replacement: the host finds each match, Lua calls the replacement.
  -- The pieces are joined in blocks so a long result does not hold one table slot per piece. Called
  -- from the gsub wrapper, never as a tail call: 3 levels up from here is the wrapper's caller.
  local function substitute(s, p, repl, max_n, anchored)
    local is_table = type(repl) == "table"
    local blocks, nb, parts, np = {}, 0, {}, 0
    local src, n, len = 0, 0, #s
    local q, e, v
    local function take(ok, mq, me, ...)
      if not ok then error(mq, 0) end
      q, e = mq, me
      if mq == nil then return end
      if is_table then v = repl[(...)] else v = repl(...) end
    end
    while n < max_n do
      take(p_gsub_next(s, p, src, is_table))
      if q == nil then break end
      if q > src then np = np + 1; parts[np] = sub(s, src + 1, q) end
      n = n + 1
      if not v then
        v = sub(s, q + 1, e)
      elseif type(v) ~= "string" and type(v) ~= "number" then
        error(where(3) .. "invalid replacement value (a " .. type(v) .. ")", 0)
      end
      np = np + 1; parts[np] = v
      if e > q then
        src = e
      elseif q < len then
        np = np + 1; parts[np] = sub(s, q + 1, q + 1); src = q + 1
      else
        src = q
        break
      end
      if np >= 256 then
        nb = nb + 1; blocks[nb] = concat(parts, "", 1, np); np = 0
      end
      if anchored then break end
    end
    np = np + 1; parts[np] = sub(s, src + 1)
    nb = nb + 1; blocks[nb] = concat(parts, "", 1, np)
    return concat(blocks, "", 1, nb), n
  end
  string.gsub = function(...)
    check("gsub", (select(2, ...)))
    local done, a, b, c, d, e = finish(p_gsub(...))
    if done then return a, b end
    return pass(substitute(a, b, c, d, e))
  end
  if string.gfind then string.gfind = string.gmatch end
  string.dump = nil
end

-- Some library functions work in C for as long as their string or table is, in what the budget's
-- hook counts as one instruction: a loop of them could run for hours within the budget. They charge
-- that work to the budget first or after: a step for each bytes_a_step bytes they build, a quarter
-- step for each element they move or compare. Their errors are raised at the caller's line under the
-- function's name, as the C functions raise them; the budget's and memory's stop signals unchanged.
do
  local T = G.table
  local find, sub = string.find, string.sub
  local next, rawget = G.next, G.rawget
  local function spend(steps)
    local stop = charge(steps)
    if stop then error(stop, 0) end
  end
  local function named(e, name)
    local at = find(e, "to '?'", 1, true)
    if at then return sub(e, 1, at + 3) .. name .. sub(e, at + 5) end
    return e
  end
  -- Called by a wrapper (never as a tail call): 3 levels up is the wrapper's caller.
  local function settle(name, ok, ...)
    if not ok then
      local e = ...
      if fatal(e) or type(e) ~= "string" then error(e, 0) end
      error(named(e, name), 3)
    end
    return ...
  end
  local function built(r)
    if type(r) == "string" and #r >= bytes_a_step then spend(#r / bytes_a_step) end
    return r
  end
  -- f builds one string from its arguments: charged by the string's length.
  local function building(name, f)
    return function(...)
      return built(settle(name, raw.pcall(f, ...)))
    end
  end
  local function elements(t)
    if type(t) == "table" then return #t end
    return 0
  end
  -- f moves a table's elements: charged by the table's length first.
  local function moving(name, f)
    return function(...)
      spend(elements((...)) / 4)
      return pass(settle(name, raw.pcall(f, ...)))
    end
  end
  for _, name in G.ipairs({ "upper", "lower", "reverse", "sub", "format", "char" }) do
    string[name] = building(name, string[name])
  end
  T.concat = building("concat", T.concat)
  T.insert = moving("insert", T.insert)
  T.remove = moving("remove", T.remove)
  -- string.rep loops in C once per copy: with an empty string that is up to 2^31 iterations that
  -- neither allocate nor count as instructions. Repeating the empty string gives it at once; any other
  -- repetition allocates as it goes, so the memory cap stops it, and is charged once built.
  string.rep = function(...)
    local s, n = ...
    if s == "" and tonumber(n) then return "" end
    return built(settle("rep", raw.pcall(raw.rep, ...)))
  end
  local function table_arg(name, t, given)
    if type(t) ~= "table" then
      local got = given and type(t) or "no value"
      error("bad argument #1 to '" .. name .. "' (table expected, got " .. got .. ")", 3)
    end
  end
  -- sort calls a Lua comparator, whose errors travel unchanged: it is not called protected, and
  -- its arguments are checked here.
  local sort, log = T.sort, G.math.log
  T.sort = function(...)
    local t, f = ...
    table_arg("sort", t, select("#", ...) > 0)
    if f ~= nil and type(f) ~= "function" then
      error("bad argument #2 to 'sort' (function expected, got " .. type(f) .. ")", 2)
    end
    local n = #t
    if n > 1 then spend(n * log(n) / log(2) / 4) end
    return pass(sort(...))
  end
  local function function_arg(name, f)
    if type(f) ~= "function" then
      error("bad argument #2 to '" .. name .. "' (function expected, got " .. (f == nil and "nil" or type(f)) .. ")", 3)
    end
  end
  -- maxn, foreach and foreachi visit every element: in Lua, where the hook counts them.
  T.maxn = function(...)
    local t = ...
    table_arg("maxn", t, select("#", ...) > 0)
    local max = 0
    for k in next, t do
      if type(k) == "number" and k > max then max = k end
    end
    return max
  end
  if T.foreach then
    T.foreach = function(t, f, ...)
      table_arg("foreach", t, t ~= nil)
      function_arg("foreach", f)
      for k, v in next, t do
        local r = f(k, v)
        if r ~= nil then return r end
      end
    end
  end
  if T.foreachi then
    T.foreachi = function(t, f, ...)
      table_arg("foreachi", t, t ~= nil)
      function_arg("foreachi", f)
      for i = 1, #t do
        local r = f(i, rawget(t, i))
        if r ~= nil then return r end
      end
    end
  end
  -- The string metatable is shared by every string; hide it from scripts.
  G.getmetatable("").__metatable = false
end
