-- The ChatMapper Lua surface (FORMAT.md section 6), loaded once per playthrough before the asset
-- tables are filled and the project script runs. Data lives in global tables (saved by snapshots);
-- these functions are code (reloaded, never saved).
Actor = Actor or {}
Item = Item or {}
Location = Location or {}
Variable = Variable or {}
Conversation = Conversation or {}
StatusTable = StatusTable or {}
RelationshipTable = RelationshipTable or {}

-- An asset given as its table (Actor["Kick_Hart"]) is known by its Name field; a string or a number
-- by its tostring. Anything else (nil for a missing asset, a table without a Name) is no asset: nil.
local function name_of(asset)
  local t = type(asset)
  if t == "table" then
    local name = rawget(asset, "Name")
    if name == nil then return nil end
    return tostring(name)
  elseif t == "string" or t == "number" then
    return tostring(asset)
  end
  return nil
end

-- The names of two assets a status or relationship is written between: no asset is an error (M37),
-- so two missing assets never share one entry. `level` is where the error points: the script that
-- called the surface's function.
local function names_to_write(fn, level, a, b)
  local ka, kb = name_of(a), name_of(b)
  if ka == nil then error("bad argument #1 to '" .. fn .. "' (an asset expected, got " .. type(a) .. ")", level) end
  if kb == nil then error("bad argument #2 to '" .. fn .. "' (an asset expected, got " .. type(b) .. ")", level) end
  return ka, kb
end

-- A status or relationship read with no asset on either side is unset.
local function cell(table, a, b)
  local ka, kb = name_of(a), name_of(b)
  if ka == nil or kb == nil then return nil end
  local row = table[ka]
  if row == nil then return nil end
  return row[kb]
end

function GetStatus(a, b)
  local value = cell(StatusTable, a, b)
  if value == nil then return "" end
  return value
end

function SetStatus(a, b, value)
  local ka, kb = names_to_write("SetStatus", 3, a, b)
  StatusTable[ka] = StatusTable[ka] or {}
  StatusTable[ka][kb] = value
end

function GetRelationship(a, b, kind)
  local column = cell(RelationshipTable, a, b)
  local value = column and column[tostring(kind)]
  return tonumber(value) or 0
end

local function set_relationship(fn, a, b, kind, value)
  local ka, kb = names_to_write(fn, 4, a, b)
  RelationshipTable[ka] = RelationshipTable[ka] or {}
  RelationshipTable[ka][kb] = RelationshipTable[ka][kb] or {}
  RelationshipTable[ka][kb][tostring(kind)] = tonumber(value) or 0
end

function SetRelationship(a, b, kind, value)
  set_relationship("SetRelationship", a, b, kind, value)
end

function IncRelationship(a, b, kind, amount)
  set_relationship("IncRelationship", a, b, kind, GetRelationship(a, b, kind) + (tonumber(amount) or 0))
end

function DecRelationship(a, b, kind, amount)
  set_relationship("DecRelationship", a, b, kind, GetRelationship(a, b, kind) - (tonumber(amount) or 0))
end

-- Host helpers (not part of the ChatMapper surface).

-- Points Dialog at the current conversation's Dialog table.
function __stagehand_enter(conversation)
  local c = Conversation[conversation]
  if type(c) == "table" then
    Dialog = c.Dialog
  else
    Dialog = nil
  end
end

-- The names of the globals that hold data (not functions, not the standard libraries, not the
-- Dialog alias), joined by newlines: what a snapshot saves. Defined once, on the first load, while
-- only the sandbox's own globals and the surface's tables exist (later loads, after a restore, find
-- it in place: functions survive restores).
if __stagehand_globals == nil then
  local builtin = {}
  for name in pairs(_G) do builtin[name] = true end
  builtin.Actor, builtin.Item, builtin.Location, builtin.Variable = nil, nil, nil, nil
  builtin.Conversation, builtin.StatusTable, builtin.RelationshipTable = nil, nil, nil
  builtin.Dialog = true
  function __stagehand_globals()
    local names = {}
    for name, value in pairs(_G) do
      local t = type(value)
      if type(name) == "string" and not builtin[name] and t ~= "function" and t ~= "userdata" and t ~= "thread" then
        names[#names + 1] = name
      end
    end
    table.sort(names)
    return table.concat(names, "\n")
  end
end
