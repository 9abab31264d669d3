--[[
  An item as stored in `<base>:items:<runId>` (compact JSON: storedPatch in
  src/outcomes/outcome-records.ts is its one description).

  pawItemTarget(item, itemKey): the item's target id, or nil: a target that is the item's own key
    (a workload's snapshot) is stored as `true`.
  pawEncodeItem(item): the item as stored JSON. cjson writes `/` as `\/`; the store keeps it
    plain (status links hold many), which reads back the same.
]]
local function pawItemTarget(item, itemKey)
  if item.tg == true then return itemKey end
  if type(item.tg) == 'string' then return item.tg end
  return nil
end

local function pawEncodeItem(item)
  -- cjson escapes every `/`, so `\/` is always an escaped slash (never the end of an escaped
  -- backslash followed by a plain one).
  return (string.gsub(cjson.encode(item), '\\/', '/'))
end
