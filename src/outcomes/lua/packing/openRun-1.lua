--[[
  Makes a run's items writable again, the first step of an unpack (src/outcomes/run-packer.ts):
  a pack in progress is called off (its commit then finds its token gone); a packed run stays
  packed until its items are restored (restoreItems-2.lua, then finishRestore-4.lua).

  Input:
    KEYS[1] the run: `<base>:run:<runId>`

  Output:
    the run's `packed` field (its chunk count) when it is packed, else ''
]]
local flags = redis.call('HMGET', KEYS[1], 'packed', 'packing')
if flags[1] then return flags[1] end
if flags[2] then redis.call('HDEL', KEYS[1], 'packing') end
return ''
