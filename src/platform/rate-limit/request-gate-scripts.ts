import { RedisScript } from '../../redis/redis-script.js';

/**
 * The shared state of the platform request gate, one Redis hash (`<prefix>:platform-gate`):
 * `tokens`, `last` (the bucket), `pausedUntil`, `limitedAt`, `reducedRate`, `consecutive`,
 * `lastPenaltyMs` (the slow-down after a 429) and `epoch` (how many 429 waves so far).
 *
 * Time is Redis's own clock (`TIME`), so processes on machines whose clocks disagree still share
 * one bucket. Both scripts mirror TokenBucketGate (src/platform/rate-limit/token-bucket-gate.ts): a
 * token bucket whose rate is halved by a 429 and climbs back linearly over `recoveryMs`. Only the
 * short reservation in `acquireScript` is theirs alone: within one process callers wait in line
 * and never race for a token.
 */
const CURRENT_RATE = `
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
`;

/**
 * Takes up to `wanted` tokens. KEYS: the gate hash. ARGV: requestsPerSecond, burst, recoveryMs,
 * ttlMs, reserveMs, wanted. Returns `{ paused (1|0), epoch, slowed (1|0), retryMs, wait1, wait2,
 * ... }`: one wait (ms from now) per token granted, in order. A token is granted when it is in
 * the bucket (wait 0) or comes within `reserveMs` (it is reserved: the bucket goes below zero,
 * and the caller goes after its wait without asking again). When none is granted, `retryMs` says
 * when to ask again. Reserving only a short way ahead keeps processes that share a saturated
 * bucket from all asking again at the same moment, each winning a third of the time (3.7 calls
 * per token with three processes, measured), while a 429 recorded meanwhile can let through at
 * most `reserveMs` worth of requests already granted. Granting several tokens per call lets a
 * process with many callers waiting pay one round trip for all the tokens due within `reserveMs`.
 * `slowed` says a 429 still holds the rate below `requestsPerSecond`.
 */
export const acquireScript = new RedisScript(
  'platform-gate-acquire',
  `${CURRENT_RATE}
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
`,
);

/**
 * Records a 429. KEYS: the gate hash. ARGV: requestsPerSecond, penaltyMs, maxPenaltyMs,
 * recoveryMs, ttlMs. Every process pauses until `pausedUntil` and then runs at half the rate it
 * had, recovering over `recoveryMs`; 429s during a pause answer requests sent before it and
 * count once. Returns `{ pauseMs (0: already paused), epoch }`.
 */
export const rateLimitedScript = new RedisScript(
  'platform-gate-rate-limited',
  `${CURRENT_RATE}
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
`,
);
