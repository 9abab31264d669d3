--[[
  Records a 429. Every process pauses until `pausedUntil` and then runs at half the rate it had,
  recovering over the recovery time; 429s during a pause answer requests sent before it and count
  once. A 429 soon after the last pause ended pauses longer each time.

  Input:
    KEYS[1] the gate hash: `<prefix>:platform-gate`

    ARGV[1] requests per second
    ARGV[2] penalty (ms): the first pause
    ARGV[3] the longest pause (ms)
    ARGV[4] recovery (ms)
    ARGV[5] the hash's TTL (ms)

  Output:
    {pauseMs (0: already paused), epoch}
]]
--- @include "platform/rate-limit/lua/includes/currentRate.lua"
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local penalty = tonumber(ARGV[2])
local max_penalty = tonumber(ARGV[3])
local recovery = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local now = now_ms()
local s = redis.call('HMGET', key, 'pausedUntil', 'limitedAt', 'reducedRate', 'consecutive', 'lastPenaltyMs', 'epoch')
local paused_until = tonumber(s[1]) or 0
local limited_at = tonumber(s[2])
local reduced = tonumber(s[3]) or rate
local consecutive = tonumber(s[4]) or 0
local last_penalty = tonumber(s[5]) or 0
local epoch = tonumber(s[6]) or 0
if now < paused_until then
  return { 0, epoch }
end
-- A 429 soon after the last pause ended means the pressure goes on: pause longer each time.
if limited_at ~= nil and now - paused_until < last_penalty then
  consecutive = consecutive + 1
else
  consecutive = 1
end
local current = current_rate(now, rate, limited_at, paused_until, reduced, recovery)
reduced = math.max(rate / 16, current / 2)
last_penalty = math.min(max_penalty, penalty * 2 ^ (consecutive - 1))
epoch = epoch + 1
redis.call('HSET', key, 'pausedUntil', now + last_penalty, 'limitedAt', now,
  'reducedRate', tostring(reduced), 'consecutive', consecutive, 'lastPenaltyMs', last_penalty,
  'epoch', epoch, 'tokens', 0, 'last', now)
redis.call('PEXPIRE', key, ttl)
return { last_penalty, epoch }
