--[[
  The gate's clock and its current rate, as both gate scripts read them (and as TokenBucketGate,
  src/platform/rate-limit/token-bucket-gate.ts, computes them in one process).

  now_ms(): Redis's own clock (TIME) in ms, so processes on machines whose clocks disagree still
    share one bucket.
  current_rate(now, rate, limited_at, paused_until, reduced, recovery): the rate after a 429,
    halved and climbing back linearly over `recovery` ms once the pause ends; `rate` when no 429
    is on record.
]]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function current_rate(now, rate, limited_at, paused_until, reduced, recovery)
  if limited_at == nil then return rate end
  local elapsed = now - math.max(limited_at, paused_until)
  if elapsed <= 0 then return reduced end
  if elapsed >= recovery then return rate end
  return reduced + (rate - reduced) * (elapsed / recovery)
end
