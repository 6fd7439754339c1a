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

-- An asset given as its table (Actor["Kick_Hart"]) is known by its Name field; any other value by
-- its tostring.
local function name_of(asset)
  if type(asset) == "table" then
    return tostring(rawget(asset, "Name"))
  end
  return tostring(asset)
end

function GetStatus(a, b)
  local row = StatusTable[name_of(a)]
  local value = row and row[name_of(b)]
  if value == nil then return "" end
  return value
end

function SetStatus(a, b, value)
  local key = name_of(a)
  StatusTable[key] = StatusTable[key] or {}
  StatusTable[key][name_of(b)] = value
end

function GetRelationship(a, b, kind)
  local row = RelationshipTable[name_of(a)]
  local column = row and row[name_of(b)]
  local value = column and column[tostring(kind)]
  return tonumber(value) or 0
end

function SetRelationship(a, b, kind, value)
  local ka, kb = name_of(a), name_of(b)
  RelationshipTable[ka] = RelationshipTable[ka] or {}
  RelationshipTable[ka][kb] = RelationshipTable[ka][kb] or {}
  RelationshipTable[ka][kb][tostring(kind)] = tonumber(value) or 0
end

function IncRelationship(a, b, kind, amount)
  SetRelationship(a, b, kind, GetRelationship(a, b, kind) + (tonumber(amount) or 0))
end

function DecRelationship(a, b, kind, amount)
  SetRelationship(a, b, kind, GetRelationship(a, b, kind) - (tonumber(amount) or 0))
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
