--[[
  Moves the cursor forward (never back) and releases the lease if this replica holds it.

  Input:
    KEYS[1] the cursors: `<prefix>:scheduler:cursors`
    KEYS[2] the definition's lease

    ARGV[1] definition id
    ARGV[2] handled up to (epoch ms; '' for none)
    ARGV[3] owner (this replica)

  Output:
    1
]]
--- @include "scheduler/lua/includes/advanceCursor.lua"
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1
