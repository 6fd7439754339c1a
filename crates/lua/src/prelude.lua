-- Stagehand sandbox bootstrap. Runs once, with the host's private functions as arguments, before any
-- untrusted code; the host then removes every global that is not on its allowlist.
--
-- The original library functions are reached through the private table `raw` rather than upvalues,
-- so Lua names them in argument errors ("bad argument #1 to 'find'"). An error raised inside a wrapper
-- carries a position in this chunk; the host removes it from the messages it reports.
local emit, draw, reseed, fatal, max_pattern = ...
local G = _G
local error, select, type, unpack, tonumber = error, select, type, unpack, tonumber
local concat = table.concat
local string = string

local raw = {
  pcall = pcall,
  xpcall = xpcall,
  find = string.find,
  match = string.match,
  gmatch = string.gmatch,
  gsub = string.gsub,
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
  emit(concat(parts, "\t"))
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

-- Lua 5.1's pattern matcher recurses in C once per pattern item, without a depth limit: a huge pattern
-- would overflow the host's stack. Patterns longer than max_pattern bytes are refused.
do
  local function check(name, p)
    if type(p) == "string" and #p > max_pattern then
      error("bad argument #2 to '" .. name .. "' (pattern too long)", 3)
    end
  end
  local function pass(...) return ... end
  string.find = function(s, p, ...) check("find", p) return pass(raw.find(s, p, ...)) end
  string.match = function(s, p, ...) check("match", p) return pass(raw.match(s, p, ...)) end
  string.gmatch = function(s, p, ...) check("gmatch", p) return pass(raw.gmatch(s, p, ...)) end
  string.gsub = function(s, p, ...) check("gsub", p) return pass(raw.gsub(s, p, ...)) end
  if string.gfind then string.gfind = string.gmatch end
  -- string.rep loops in C once per copy: with an empty string that is up to 2^31 iterations that
  -- neither allocate nor count as instructions. Repeating the empty string gives it at once.
  string.rep = function(s, n, ...)
    if s == "" and tonumber(n) then return "" end
    return pass(raw.rep(s, n, ...))
  end
  string.dump = nil
  -- The string metatable is shared by every string; hide it from scripts.
  G.getmetatable("").__metatable = false
end
