import { RedisScript } from '../redis/redis-script.js';

/**
 * The outcome store's atomic steps. Key layout: outcome-keys.ts (the scripts build the per-status
 * and per-target keys from `base`, the same way OutcomeKeys does).
 */

/**
 * Creates a run unless it exists. KEYS: run, runs, runs:def, active.
 * ARGV: runId, fireMs, active ('1'|'0'), then field/value pairs.
 * Returns {1, status} when created, {0, existing status} when it existed.
 */
export const createRunScript = new RedisScript(
  'paw-create-run',
  `
if redis.call('EXISTS', KEYS[1]) == 1 then
  return {0, redis.call('HGET', KEYS[1], 'status') or ''}
end
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
if ARGV[3] == '1' then redis.call('ZADD', KEYS[4], ARGV[2], ARGV[1]) end
return {1, redis.call('HGET', KEYS[1], 'status')}
`,
);

/**
 * Marks a queued or running run as running (a worker took it), unless it is still queued past
 * its `startBy` (`schedule.startDeadline`): then it is recorded as missed instead, and taken out
 * of the definition's active runs. KEYS: run, the definition's active runs. ARGV: nowMs, runId.
 * Returns {previous status, '1' if it was just recorded missed else '0', ...HGETALL}; previous
 * status '' when there is no such run.
 */
export const startRunScript = new RedisScript(
  'paw-start-run',
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {''} end
local missedNow = '0'
local startBy = tonumber(redis.call('HGET', KEYS[1], 'startBy') or '')
if status == 'queued' and startBy and tonumber(ARGV[1]) > startBy then
  local deadline = redis.call('HGET', KEYS[1], 'startDeadline') or ''
  redis.call('HSET', KEYS[1], 'status', 'missed', 'finishedAt', ARGV[1], 'reason',
    'no worker took it within its start deadline (' .. deadline .. ') after its time: the workers were down or busy')
  redis.call('ZREM', KEYS[2], ARGV[2])
  missedNow = '1'
elseif status == 'queued' or status == 'running' then
  redis.call('HSET', KEYS[1], 'status', 'running')
  redis.call('HSETNX', KEYS[1], 'startedAt', ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'attempts', 1)
end
local reply = {status, missedNow}
local hash = redis.call('HGETALL', KEYS[1])
for i = 1, #hash do reply[#reply + 1] = hash[i] end
return reply
`,
);

/**
 * Creates or updates an item, keeping the run's counters and the status and target indexes
 * in step. KEYS: run, items. ARGV: base, runId, itemKey, nowMs, patch JSON (compact names;
 * JSON null clears a field).
 * Returns the previous status ('' for a new item), the stored JSON, and the run's counters after
 * the update (total, then one per item status in ITEM_STATUSES order), read in the same step.
 */
export const recordItemScript = new RedisScript(
  'paw-record-item',
  `
local fireMs = redis.call('HGET', KEYS[1], 'fireMs')
if not fireMs then return redis.error_reply('PAW_NO_SUCH_RUN') end
local base, runId, itemKey = ARGV[1], ARGV[2], ARGV[3]
local old = redis.call('HGET', KEYS[2], itemKey)
local item = {}
if old then item = cjson.decode(old) end
local oldStatus, oldTarget = item.st, item.tg
local patch = cjson.decode(ARGV[5])
for field, value in pairs(patch) do
  if value == cjson.null then item[field] = nil else item[field] = value end
end
item.ua = tonumber(ARGV[4])
local json = cjson.encode(item)
redis.call('HSET', KEYS[2], itemKey, json)
if not old then redis.call('HINCRBY', KEYS[1], 'count:total', 1) end
local newStatus = item.st
if oldStatus ~= newStatus then
  if oldStatus then
    redis.call('HINCRBY', KEYS[1], 'count:' .. oldStatus, -1)
    if oldStatus ~= 'succeeded' then
      redis.call('SREM', base .. ':items:' .. runId .. ':' .. oldStatus, itemKey)
    end
  end
  redis.call('HINCRBY', KEYS[1], 'count:' .. newStatus, 1)
  if newStatus ~= 'succeeded' then
    redis.call('SADD', base .. ':items:' .. runId .. ':' .. newStatus, itemKey)
  end
end
-- The member format is targetMember() in outcome-keys.ts.
local function member(target)
  if itemKey == target then return runId end
  return runId .. ' ' .. itemKey
end
if oldTarget and oldTarget ~= item.tg then
  redis.call('ZREM', base .. ':target:' .. oldTarget, member(oldTarget))
end
if item.tg and item.tg ~= oldTarget then
  redis.call('ZADD', base .. ':target:' .. item.tg, fireMs, member(item.tg))
end
if item.tg and item.tn then
  redis.call('HSET', base .. ':target-names', string.lower(item.tn), item.tg)
end
local counts = redis.call('HMGET', KEYS[1], 'count:total', 'count:queued', 'count:running',
  'count:succeeded', 'count:failed', 'count:skipped', 'count:timed-out', 'count:canceled')
local reply = {oldStatus or '', json}
for i = 1, #counts do reply[#reply + 1] = counts[i] or '0' end
return reply
`,
);

/**
 * Finishes a run. KEYS: run, active. ARGV: runId, nowMs, status ('' derives it from the item
 * counters), errorCode, errorMessage ('' for none).
 * A run the scheduler recorded as skipped or missed is left as it is.
 * Returns {final status, status before the call} ({'', ''} when there is no such run), so the
 * caller can tell the call that ended the run from a repeat.
 */
export const finishRunScript = new RedisScript(
  'paw-finish-run',
  `
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return {'', ''} end
if current == 'skipped' or current == 'missed' then return {current, current} end
local status = ARGV[3]
if status == '' then
  local function count(name) return tonumber(redis.call('HGET', KEYS[1], 'count:' .. name) or '0') end
  if count('failed') + count('timed-out') > 0 then status = 'failed'
  elseif count('canceled') > 0 then status = 'canceled'
  elseif count('queued') + count('running') > 0 then status = 'failed'
  else status = 'succeeded' end
end
redis.call('HSET', KEYS[1], 'status', status, 'finishedAt', ARGV[2])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'errorCode', ARGV[4]) end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'errorMessage', ARGV[5]) end
redis.call('ZREM', KEYS[2], ARGV[1])
return {status, current}
`,
);
