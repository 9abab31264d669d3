--[[
  Takes up to `wanted` tokens from the platform request gate. A token is granted when it is in
  the bucket (wait 0) or comes within `reserveMs` (it is reserved: the bucket goes below zero, and
  the caller goes after its wait without asking again). When none is granted, `retryMs` says when
  to ask again. Reserving only a short way ahead keeps processes that share a saturated bucket
  from all asking again at the same moment, each winning a third of the time (3.7 calls per
  token with three processes, measured), while a 429 recorded meanwhile can let through at most
  `reserveMs` worth of requests already granted. Granting several tokens per call lets a process
  with many callers waiting pay one round trip for all the tokens due within `reserveMs`.

  Input:
    KEYS[1] the gate hash: `<prefix>:platform-gate`

    ARGV[1] requests per second
    ARGV[2] burst
    ARGV[3] recovery (ms)
    ARGV[4] the hash's TTL (ms)
    ARGV[5] reserve (ms)
    ARGV[6] wanted (tokens)

  Output:
    {paused (1|0), epoch, slowed (1|0), retryMs, wait1, wait2, ...}: one wait (ms from now) per
    token granted, in order; `slowed` says a 429 still holds the rate below requests per second
]]
--- @include "platform/rate-limit/lua/includes/currentRate.lua"
local key = KEYS[1]
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local recovery = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local reserve = tonumber(ARGV[5]) or 0
local wanted = tonumber(ARGV[6]) or 1
local now = now_ms()
local s = redis.call('HMGET', key, 'tokens', 'last', 'pausedUntil', 'limitedAt', 'reducedRate', 'epoch')
local tokens = tonumber(s[1]) or burst
local last = tonumber(s[2]) or now
local paused_until = tonumber(s[3]) or 0
local limited_at = tonumber(s[4])
local reduced = tonumber(s[5]) or rate
local epoch = tonumber(s[6]) or 0
if now < paused_until then
  return { 1, epoch, 1, paused_until - now }
end
local current = current_rate(now, rate, limited_at, paused_until, reduced, recovery)
local slowed = 0
if current < rate then slowed = 1 end
-- Nothing accrues during a pause: it ends with an empty bucket, not a burst.
local elapsed = math.max(0, now - math.max(last, paused_until))
tokens = math.min(burst, tokens + elapsed * current / 1000)
local reply = { 0, epoch, slowed, 0 }
for i = 1, wanted do
  local wait = 0
  if tokens < 1 then wait = math.max(1, math.ceil((1 - tokens) * 1000 / current)) end
  if wait > reserve then
    if i == 1 then reply[4] = wait end
    break
  end
  tokens = tokens - 1
  reply[#reply + 1] = wait
end
redis.call('HSET', key, 'tokens', tostring(tokens), 'last', now)
redis.call('PEXPIRE', key, ttl)
return reply
