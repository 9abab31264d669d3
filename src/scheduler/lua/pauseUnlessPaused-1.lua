--[[
  Sets a definition's schedule pause unless one is in force (two operators pausing at once leave
  the first pause on record, never a mix). An expired pause is replaced.

  Input:
    KEYS[1] the paused definitions: `<prefix>:schedules:paused` (definition id -> pause JSON)

    ARGV[1] definition id
    ARGV[2] the pause (JSON)
    ARGV[3] now, an ISO time in UTC (ISO times in UTC compare as strings)

  Output:
    the pause in force (JSON) when there was one; nil when this call set it
]]
local current = redis.call('HGET', KEYS[1], ARGV[1])
if current then
  local ok, pause = pcall(cjson.decode, current)
  if ok and type(pause) == 'table' and (pause['until'] == nil or pause['until'] > ARGV[3]) then
    return current
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return false
