--[[
  After the resume: drops this run's hold, and the record with it when no one else holds it.

  Input:
    KEYS[1] the hold record (`WindowKeys.hold`)

    ARGV[1] run id

  Output:
    1 when the record was deleted, 0 when others still hold it
]]
local me = 'h:' .. ARGV[1]
redis.call('HDEL', KEYS[1], me)
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, 2) == 'h:' then return 0 end
end
redis.call('DEL', KEYS[1])
return 1
