--[[
  pawIndexedItemStatuses: the item statuses with a set of item keys of their own per run
  (`<base>:items:<runId>:<status>`), as a Lua set: `{['failed'] = true, ...}`. Its one home is
  INDEXED_ITEM_STATUSES in src/outcomes/outcome-keys.ts, which gives it to every script that
  includes this file (ITEM_SCRIPT_FRAGMENTS in src/outcomes/item-store.ts).
]]
--- @fragment indexedItemStatuses
