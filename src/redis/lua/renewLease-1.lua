--[[
  Extends the lease if its owner still holds it.

  Input:
    KEYS[1] the lease

    ARGV[1] owner
    ARGV[2] lease length (ms)

  Output:
    1 when extended, 0 when the owner no longer holds it
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
