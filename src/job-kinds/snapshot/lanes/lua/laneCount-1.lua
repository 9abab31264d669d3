--[[
  Fixes how many lanes a run's items are split into: the first caller's count stays (a fan-out
  repeated after a crash must put each item in the lane it chose the first time).

  Input:
    KEYS[1] the run: `<base>:run:<runId>` (its `lanes` field)

    ARGV[1] the proposed count

  Output:
    the count on record; a Redis error reply `PAW_NO_SUCH_RUN` when there is no run
]]
local runKey, proposed = KEYS[1], ARGV[1]
if redis.call('EXISTS', runKey) == 0 then return redis.error_reply('PAW_NO_SUCH_RUN') end
redis.call('HSETNX', runKey, 'lanes', proposed)
return tonumber(redis.call('HGET', runKey, 'lanes'))
