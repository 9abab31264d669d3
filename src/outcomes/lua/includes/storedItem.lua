--[[
  An item as stored in `<base>:items:<runId>` (compact JSON: storedPatch in
  src/outcomes/outcome-records.ts is its one description).

  pawItemTarget(item, itemKey): the item's target id, or nil: a target that is the item's own key
    (a workload's snapshot) is stored as `true`.
  pawUnmarkItemKey(value, itemKey): a stored string with the item's key put back for its mark
    (NUL; a doubled NUL is a NUL of the value): unmarkItemKey in outcome-records.ts, for the
    coverage index, which keeps the last reason readable on its own. nil stays nil.
  pawEncodeItem(item): the item as stored JSON. cjson writes `/` as `\/`; the store keeps it
    plain (status links hold many), which reads back the same.
]]
local function pawItemTarget(item, itemKey)
  if item.tg == true then return itemKey end
  if type(item.tg) == 'string' then return item.tg end
  return nil
end

local function pawUnmarkItemKey(value, itemKey)
  if type(value) ~= 'string' then return value end
  -- %z is NUL in Lua 5.1's patterns; the longest match first, as unmarkItemKey reads left to right.
  return (string.gsub(value, '%z%z?', function(mark)
    if #mark == 2 then return '\0' end
    return itemKey
  end))
end

local function pawEncodeItem(item)
  -- cjson escapes every `/`, so `\/` is always an escaped slash (never the end of an escaped
  -- backslash followed by a plain one).
  return (string.gsub(cjson.encode(item), '\\/', '/'))
end
