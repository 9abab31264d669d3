--[[
  Takes the lease for its owner: set when free, extended when the owner already holds it (the
  same logical task retried after its process died).

  Input:
    KEYS[1] the lease

    ARGV[1] owner
    ARGV[2] lease length (ms)

  Output:
    1 when the owner holds it now, 0 when someone else does
]]
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
