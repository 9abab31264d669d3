--[[
  Moves the cursor past the fires handled so far (never back) and extends the lease if this
  replica still holds it.

  Input:
    KEYS[1] the cursors: `<prefix>:scheduler:cursors`
    KEYS[2] the definition's lease

    ARGV[1] definition id
    ARGV[2] handled up to (epoch ms; '' for none)
    ARGV[3] owner (this replica)
    ARGV[4] lease length (ms)

  Output:
    1 while it holds the lease, 0 once it has lost it
]]
--- @include "scheduler/lua/includes/advanceCursor.lua"
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
