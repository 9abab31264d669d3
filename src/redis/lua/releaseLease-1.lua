--[[
  Deletes the lease if its owner holds it.

  Input:
    KEYS[1] the lease

    ARGV[1] owner

  Output:
    1 when deleted, 0 when the owner did not hold it
]]
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
