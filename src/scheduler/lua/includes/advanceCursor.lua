--[[
  Moves definition ARGV[1]'s cursor in the hash KEYS[1] forward to ARGV[2] (nothing when it is
  ''), never back. Runs as it is included: the scripts that include it take these KEYS and ARGV.
]]
if ARGV[2] ~= '' then
  local cursor = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
  if not cursor or cursor < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
end
