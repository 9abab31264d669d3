import { RedisScript } from '../redis/redis-script.js';
import { INDEXED_ITEM_STATUSES } from './outcome-keys.js';

/**
 * The outcome store's atomic steps. Key layout: outcome-keys.ts (the scripts build the per-status
 * and per-target keys from `base`, the same way OutcomeKeys does).
 */

/**
 * The Lua function that creates a run unless it exists: `pawCreateRun(runKey, runsKey,
 * runsOfDefinitionKey, activeKey, runId, fireMs, active ('1'|'0'), status, fields)` where
 * `fields` is a table of field/value pairs (runId and status included). Returns {1, status}
 * when created, {0, existing status} when it existed. Composed into {@link createRunScript} and
 * into the script that also adds the run's BullMQ job (src/queue/run-enqueue-script.ts).
 */
const CREATE_RUN_FUNCTION = `
local function pawCreateRun(runKey, runsKey, runsOfKey, activeKey, runId, fireMs, active, status, fields)
  if redis.call('HSETNX', runKey, 'runId', runId) == 0 then
    return {0, redis.call('HGET', runKey, 'status') or ''}
  end
  redis.call('HSET', runKey, unpack(fields))
  redis.call('ZADD', runsKey, fireMs, runId)
  redis.call('ZADD', runsOfKey, fireMs, runId)
  if active == '1' then redis.call('ZADD', activeKey, fireMs, runId) end
  return {1, status}
end
`;

/** The Lua function that creates a run, for scripts that compose it with another step. */
export const createRunFunction = CREATE_RUN_FUNCTION;

/**
 * Creates a run unless it exists (see CREATE_RUN_FUNCTION). KEYS: run, runs, runs:def, active.
 * ARGV: runId, fireMs, active ('1'|'0'), status, then field/value pairs.
 */
export const createRunScript = new RedisScript(
  'paw-create-run',
  `${CREATE_RUN_FUNCTION}
local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
return pawCreateRun(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], fields)
`,
);

/**
 * Lua helpers shared by the run scripts: `pawReadRun(runKey)` reads a run's hash into a table
 * (nil when there is no such run), `pawRunReply(head, run)` appends its fields, flat, to `head`
 * (what OutcomeStore parses back with runFromHash), and `pawStarted(run, startMs)` applies a
 * worker's start to a queued or running run (running, its first start time kept, one more
 * attempt) and returns the fields to write (nil for a run that has ended).
 */
const RUN_HASH_FUNCTIONS = `
local function pawReadRun(runKey)
  local flat = redis.call('HGETALL', runKey)
  if #flat == 0 then return nil end
  local run = {}
  for i = 1, #flat, 2 do run[flat[i]] = flat[i + 1] end
  return run
end
local function pawRunReply(head, run)
  for field, value in pairs(run) do
    head[#head + 1] = field
    head[#head + 1] = value
  end
  return head
end
local function pawStarted(run, startMs)
  if run.status ~= 'queued' and run.status ~= 'running' then return nil end
  run.status = 'running'
  run.startedAt = run.startedAt or startMs
  run.attempts = tostring((tonumber(run.attempts or '0') or 0) + 1)
  return {'status', 'running', 'startedAt', run.startedAt, 'attempts', run.attempts}
end
`;

/**
 * Marks a queued or running run as running (a worker took it), unless it is still queued past
 * its `startBy` (`schedule.startDeadline`): then it is recorded as missed instead, and taken out
 * of the definition's active runs (`<base>:active:<definitionId>`). KEYS: run. ARGV: nowMs,
 * runId, base. Returns {previous status, '1' if it was just recorded missed else '0', ...the
 * run's fields as they are now}; previous status '' when there is no such run.
 */
export const startRunScript = new RedisScript(
  'paw-start-run',
  `${RUN_HASH_FUNCTIONS}
local run = pawReadRun(KEYS[1])
if not run then return {''} end
local status = run.status or ''
local missedNow = '0'
local startBy = tonumber(run.startBy or '')
if status == 'queued' and startBy and tonumber(ARGV[1]) > startBy then
  run.status = 'missed'
  run.finishedAt = ARGV[1]
  run.reason = 'no worker took it within its start deadline (' .. (run.startDeadline or '') ..
    ') after its time: the workers were down or busy'
  redis.call('HSET', KEYS[1], 'status', run.status, 'finishedAt', run.finishedAt, 'reason', run.reason)
  redis.call('ZREM', ARGV[3] .. ':active:' .. (run.definitionId or ''), ARGV[2])
  missedNow = '1'
else
  local started = pawStarted(run, ARGV[1])
  if started then redis.call('HSET', KEYS[1], unpack(started)) end
end
return pawRunReply({status, missedNow}, run)
`,
);

/**
 * The Lua function that finishes a run: `pawFinishRun(runKey, base, runId, nowMs, status ('' to
 * derive it from the item counters), errorCode, errorMessage, startMs ('' or a worker's start
 * deferred to this write))`. A run the scheduler recorded as
 * skipped or missed is left as it is, and so is an ended run when the status is to be derived.
 * Takes the run out of its definition's active runs
 * (`<base>:active:<definitionId>`). Returns {final status, status before the call, ...the run's
 * fields as they are now} ({'', ''} when there is no such run), so the caller can tell the call
 * that ended the run from a repeat, and report the run without reading it again.
 */
const FINISH_RUN_FUNCTION = `${RUN_HASH_FUNCTIONS}
local function pawFinishRun(runKey, base, runId, nowMs, wanted, errorCode, errorMessage, startMs)
  local run = pawReadRun(runKey)
  if not run then return {'', ''} end
  local current = run.status or ''
  local function reply(final) return pawRunReply({final, current}, run) end
  -- A start deferred to this write (OutcomeStore.startRun's recordWithNextWrite).
  local started = nil
  if startMs ~= '' then started = pawStarted(run, startMs) end
  if current == 'skipped' or current == 'missed' then return reply(current) end
  -- Deriving the end again of a run that has ended changes nothing (a repeated step).
  if wanted == '' and current ~= 'queued' and current ~= 'running' then return reply(current) end
  local status = wanted
  if status == '' then
    local function count(name) return tonumber(run['count:' .. name] or '0') end
    if count('failed') + count('timed-out') > 0 then status = 'failed'
    elseif count('canceled') > 0 then status = 'canceled'
    elseif count('queued') + count('running') > 0 then status = 'failed'
    else status = 'succeeded' end
  end
  run.status = status
  run.finishedAt = nowMs
  local fields = {'status', status, 'finishedAt', nowMs}
  if started then
    for i = 3, #started do fields[#fields + 1] = started[i] end
  end
  if errorCode ~= '' then
    run.errorCode = errorCode
    fields[#fields + 1] = 'errorCode'
    fields[#fields + 1] = errorCode
  end
  if errorMessage ~= '' then
    run.errorMessage = errorMessage
    fields[#fields + 1] = 'errorMessage'
    fields[#fields + 1] = errorMessage
  end
  redis.call('HSET', runKey, unpack(fields))
  redis.call('ZREM', base .. ':active:' .. (run.definitionId or ''), runId)
  return reply(status)
end
`;

/** The first element of the reply when an item's status was not the one required. */
export const NOT_RECORDED = 'PAW_NOT_RECORDED';

/**
 * The Lua function behind every item update: creates or updates an item, keeping the run's
 * counters and the status and target indexes in step. Composed into {@link recordItemScript}
 * and into the scripts that record an item and move its BullMQ job in the same step
 * (OutcomeStore.recordItem's `along`). Arguments: the run and items keys, then base, runId,
 * itemKey, nowMs, the patch JSON (compact names; JSON null clears a field), the status the item
 * must have for the update to happen ('' for any), and '1' to merge the patch's details into
 * the item's instead of replacing them, and '1' to finish the run in the same step when this
 * update ends its last item still queued or running (pawFinishRun), and '' or the time of a
 * worker's start of the run deferred to this write (pawStarted).
 * Returns the previous status ('' for a new item), the stored JSON, and the run's counters after
 * the update (total, then one per item status in ITEM_STATUSES order), read in the same step,
 * then, when it finished the run, pawFinishRun's reply; `{NOT_RECORDED, stored JSON or ''}` when the item's status was not the one required; or a
 * Redis error reply `PAW_NO_SUCH_RUN`.
 */
const RECORD_ITEM_FUNCTION = `
local function pawRecordItem(runKey, itemsKey, base, runId, itemKey, nowMs, patchJson, onlyIf, merge, finishIfLast, startMs)
  local fireMs
  if startMs ~= '' then
    -- A start deferred to this write (OutcomeStore.startRun's recordWithNextWrite).
    local run = redis.call('HMGET', runKey, 'fireMs', 'status', 'startedAt', 'attempts')
    fireMs = run[1]
    if not fireMs then return redis.error_reply('PAW_NO_SUCH_RUN') end
    local started = pawStarted({status = run[2], startedAt = run[3] or nil, attempts = run[4] or nil}, startMs)
    if started then redis.call('HSET', runKey, unpack(started)) end
  else
    fireMs = redis.call('HGET', runKey, 'fireMs')
    if not fireMs then return redis.error_reply('PAW_NO_SUCH_RUN') end
  end
  local indexed = ${luaSet(INDEXED_ITEM_STATUSES)}
  local old = redis.call('HGET', itemsKey, itemKey)
  local item = {}
  if old then item = cjson.decode(old) end
  if onlyIf ~= '' and item.st ~= onlyIf then return {'${NOT_RECORDED}', old or ''} end
  local oldStatus, oldTarget, oldName = item.st, item.tg, item.tn
  local patch = cjson.decode(patchJson)
  if merge == '1' and type(patch.dt) == 'table' and type(item.dt) == 'table' then
    for field, value in pairs(item.dt) do
      if patch.dt[field] == nil then patch.dt[field] = value end
    end
  end
  for field, value in pairs(patch) do
    if value == cjson.null then item[field] = nil else item[field] = value end
  end
  item.ua = tonumber(nowMs)
  local json = cjson.encode(item)
  redis.call('HSET', itemsKey, itemKey, json)
  if not old then redis.call('HINCRBY', runKey, 'count:total', 1) end
  local newStatus = item.st
  if oldStatus ~= newStatus then
    if oldStatus then
      redis.call('HINCRBY', runKey, 'count:' .. oldStatus, -1)
      if indexed[oldStatus] then
        redis.call('SREM', base .. ':items:' .. runId .. ':' .. oldStatus, itemKey)
      end
    end
    redis.call('HINCRBY', runKey, 'count:' .. newStatus, 1)
    if indexed[newStatus] then
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
  -- The name index follows what an item says when it says something new (not every update).
  if item.tg and item.tn and (item.tn ~= oldName or item.tg ~= oldTarget) then
    redis.call('HSET', base .. ':target-names', string.lower(item.tn), item.tg)
  end
  local counts = redis.call('HMGET', runKey, 'count:total', 'count:queued', 'count:running',
    'count:succeeded', 'count:failed', 'count:skipped', 'count:timed-out', 'count:canceled')
  local reply = {oldStatus or '', json}
  for i = 1, #counts do reply[#reply + 1] = counts[i] or '0' end
  -- The last item to end finishes its run in the same step: a crash between the two writes
  -- would leave a run whose items have all ended running for ever.
  if finishIfLast == '1' and oldStatus ~= newStatus and newStatus ~= 'queued' and newStatus ~= 'running'
      and (tonumber(counts[2]) or 0) + (tonumber(counts[3]) or 0) == 0 then
    local finished = pawFinishRun(runKey, base, runId, nowMs, '', '', '', '')
    for i = 1, #finished do reply[#reply + 1] = finished[i] end
  end
  return reply
end
`;

/** The Lua functions that record an item, for scripts that compose it with another step. */
export const recordItemFunction = FINISH_RUN_FUNCTION + RECORD_ITEM_FUNCTION;

/**
 * Creates or updates an item (see RECORD_ITEM_FUNCTION). KEYS: run, items. ARGV: base, runId,
 * itemKey, nowMs, patch JSON, required status, merge, finish the run if last ('1'|'0'), start
 * ('' or ms).
 */
export const recordItemScript = new RedisScript(
  'paw-record-item',
  `${FINISH_RUN_FUNCTION}${RECORD_ITEM_FUNCTION}
return pawRecordItem(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9])
`,
);

/**
 * Creates the items of a run that do not exist yet, many at once (a snapshot run's fan-out):
 * one script and a handful of commands per batch instead of a script per item. An item that
 * exists is left exactly as it is, so a repeated fan-out never moves an item back to queued.
 * KEYS: run, items. ARGV: base, runId, nowMs, start ('' or the time of a worker's start of the
 * run deferred to this write), then itemKey and its JSON (compact names, the `ua` time included)
 * for each item.
 * Returns how many were created, or a Redis error reply `PAW_NO_SUCH_RUN`.
 */
export const createItemsScript = new RedisScript(
  'paw-create-items',
  `${RUN_HASH_FUNCTIONS}
local run = redis.call('HMGET', KEYS[1], 'fireMs', 'status', 'startedAt', 'attempts')
local fireMs = run[1]
if not fireMs then return redis.error_reply('PAW_NO_SUCH_RUN') end
if ARGV[4] ~= '' then
  -- A start deferred to this write (OutcomeStore.startRun's recordWithNextWrite).
  local started = pawStarted({status = run[2], startedAt = run[3] or nil, attempts = run[4] or nil}, ARGV[4])
  if started then redis.call('HSET', KEYS[1], unpack(started)) end
end
local base, runId = ARGV[1], ARGV[2]
local indexed = ${luaSet(INDEXED_ITEM_STATUSES)}
local keys = {}
for i = 5, #ARGV, 2 do keys[#keys + 1] = ARGV[i] end
local existing = redis.call('HMGET', KEYS[2], unpack(keys))
local fields, names, perStatus, statusSets = {}, {}, {}, {}
local created = 0
for n = 1, #keys do
  if not existing[n] then
    local itemKey, json = keys[n], ARGV[4 + 2 * n]
    local item = cjson.decode(json)
    fields[#fields + 1] = itemKey
    fields[#fields + 1] = json
    created = created + 1
    perStatus[item.st] = (perStatus[item.st] or 0) + 1
    if indexed[item.st] then
      statusSets[item.st] = statusSets[item.st] or {}
      table.insert(statusSets[item.st], itemKey)
    end
    if item.tg then
      local member = runId
      if itemKey ~= item.tg then member = runId .. ' ' .. itemKey end
      redis.call('ZADD', base .. ':target:' .. item.tg, fireMs, member)
      if item.tn then
        names[#names + 1] = string.lower(item.tn)
        names[#names + 1] = item.tg
      end
    end
  end
end
if created > 0 then
  redis.call('HSET', KEYS[2], unpack(fields))
  redis.call('HINCRBY', KEYS[1], 'count:total', created)
  for status, count in pairs(perStatus) do
    redis.call('HINCRBY', KEYS[1], 'count:' .. status, count)
  end
  for status, members in pairs(statusSets) do
    redis.call('SADD', base .. ':items:' .. runId .. ':' .. status, unpack(members))
  end
  if #names > 0 then redis.call('HSET', base .. ':target-names', unpack(names)) end
end
return created
`,
);

/**
 * Fixes how many lanes a run's items are split into: the first caller's count stays (a fan-out
 * repeated after a crash must put each item in the lane it chose the first time). KEYS: run.
 * ARGV: the proposed count. Returns the count on record, or a Redis error reply
 * `PAW_NO_SUCH_RUN`.
 */
export const laneCountScript = new RedisScript(
  'paw-lane-count',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('PAW_NO_SUCH_RUN') end
redis.call('HSETNX', KEYS[1], 'lanes', ARGV[1])
return tonumber(redis.call('HGET', KEYS[1], 'lanes'))
`,
);

/**
 * Queues items for a run's lanes, unless they are queued already or a lane has taken them (a
 * repeated fan-out leaves an item where it is). KEYS: the run's lane queue, then every lane.
 * ARGV: the item keys. Returns how many were queued.
 */
export const enqueueForLanesScript = new RedisScript(
  'paw-enqueue-for-lanes',
  `
local fresh = {}
for i = 1, #ARGV do
  local taken = redis.call('ZSCORE', KEYS[1], ARGV[i])
  for k = 2, #KEYS do
    if taken then break end
    taken = redis.call('ZSCORE', KEYS[k], ARGV[i])
  end
  if not taken then
    fresh[#fresh + 1] = 0
    fresh[#fresh + 1] = ARGV[i]
  end
end
for i = 1, #fresh, 1000 do
  redis.call('ZADD', KEYS[1], unpack(fresh, i, math.min(i + 999, #fresh)))
end
return #fresh / 2
`,
);

/**
 * A lane's share of the run's lane queue and its own items due by a time, with their records, in
 * one step. Items are taken from the queue first (a trigger gets a snapshot started; a poll only
 * learns of one), into the lane, due again at a lease's end should nobody write sooner; the
 * lane's own due items make up the rest. KEYS: run, items, lane, lane queue. ARGV: the time (ms),
 * the most items to return, the lease's end (ms), the most to take from the queue. Returns {''} when there is no such run, else
 * {the run's status, the lane's size, the due time of the lane's first item not returned ('' when
 * none), the items still in the lane queue, then item key, due time and stored JSON ('' when
 * there is no record) for each item returned}, those from the queue first, then the lane's, the
 * earliest first.
 */
export const dueItemsScript = new RedisScript(
  'paw-due-items',
  `
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return {''} end
local limit = tonumber(ARGV[2])
local taken = {}
if tonumber(ARGV[4]) > 0 then taken = redis.call('ZPOPMIN', KEYS[4], ARGV[4]) end
local returned = {}
for i = 1, #taken, 2 do
  returned[#returned + 1] = taken[i]
  returned[#returned + 1] = ARGV[3]
end
local fromQueue = #returned / 2
local due = {}
if fromQueue < limit then
  due = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, limit - fromQueue)
end
local after = redis.call('ZRANGE', KEYS[3], #due / 2, #due / 2, 'WITHSCORES')
for i = 1, #due do returned[#returned + 1] = due[i] end
for i = 1, #taken, 2 do redis.call('ZADD', KEYS[3], ARGV[3], taken[i]) end
local count = #returned / 2
local reply = {status, redis.call('ZCARD', KEYS[3]), after[2] or '', redis.call('ZCARD', KEYS[4])}
if count > 0 then
  local members = {}
  for i = 1, #returned, 2 do members[#members + 1] = returned[i] end
  local stored = redis.call('HMGET', KEYS[2], unpack(members))
  for i = 1, count do
    reply[#reply + 1] = members[i]
    reply[#reply + 1] = returned[2 * i]
    reply[#reply + 1] = stored[i] or ''
  end
end
return reply
`,
);

/**
 * Finishes a run. KEYS: run. ARGV: runId, nowMs, status ('' derives it from the item counters),
 * errorCode, errorMessage ('' for none), base, start ('' or ms). See FINISH_RUN_FUNCTION.
 */
export const finishRunScript = new RedisScript(
  'paw-finish-run',
  `${FINISH_RUN_FUNCTION}
return pawFinishRun(KEYS[1], ARGV[6], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[7])
`,
);

/** A Lua table literal used as a set: `{['failed'] = true, ...}`. */
function luaSet(members: readonly string[]): string {
  return `{${members.map((member) => `['${member}'] = true`).join(', ')}}`;
}
