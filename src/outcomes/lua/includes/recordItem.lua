--[[
  pawRecordItem(runKey, itemsKey, base, runId, itemKey, nowMs, patchJson, onlyIf, merge,
  finishIfLast, startMs): creates or updates an item of a run, keeping the run's counters and the
  status and target indexes in step (key layout: src/outcomes/outcome-keys.ts).

    runKey, itemsKey  `<base>:run:<runId>`, `<base>:items:<runId>`
    patchJson     the update (compact names; JSON null clears a field)
    onlyIf        the status the item must have for the update to happen ('' for any)
    merge         '1': the patch's details are merged into the item's instead of replacing them
    finishIfLast  '1': this update finishes the run (pawFinishRun) when it ends the run's last
                  item still queued or running, and the run is not fanning out (its `fanning-out`
                  field: more items are still to be created, createItems-2.lua; the fan-out's
                  end finishes the run instead when nothing is left, endFanOut-1.lua)
    startMs       '' or the time of a worker's start of the run deferred to this write

  Returns {previous status ('' for a new item), the stored JSON, then the run's counters after
  the update (total, queued, running, succeeded, failed, skipped, timed-out, canceled), then,
  when it finished the run, pawFinishRun's reply}; {'PAW_NOT_RECORDED', stored JSON or ''} when
  the item's status was not `onlyIf`; or a Redis error reply `PAW_NO_SUCH_RUN`, or
  `PAW_RUN_PACKED` when the run's items are packed (includes/runPacked.lua).
]]
--- @include "outcomes/lua/includes/runHash.lua"
--- @include "outcomes/lua/includes/finishRun.lua"
--- @include "outcomes/lua/includes/indexedItemStatuses.lua"
--- @include "outcomes/lua/includes/recordCoverage.lua"
--- @include "outcomes/lua/includes/storedItem.lua"
--- @include "outcomes/lua/includes/runPacked.lua"

local function pawRecordItem(runKey, itemsKey, base, runId, itemKey, nowMs, patchJson, onlyIf, merge, finishIfLast, startMs)
  local run = redis.call('HMGET', runKey, 'fireMs', 'packed', 'packing', 'status', 'startedAt', 'attempts')
  local fireMs = run[1]
  if not fireMs then return redis.error_reply('PAW_NO_SUCH_RUN') end
  if pawPackedFlags(run[2], run[3]) then return redis.error_reply('PAW_RUN_PACKED') end
  if startMs ~= '' then
    -- A start deferred to this write (see src/outcomes/deferred-starts.ts).
    local started = pawStarted({status = run[4], startedAt = run[5] or nil, attempts = run[6] or nil}, startMs)
    if started then redis.call('HSET', runKey, unpack(started)) end
  end
  local old = redis.call('HGET', itemsKey, itemKey)
  local item = {}
  if old then item = cjson.decode(old) end
  if onlyIf ~= '' and item.st ~= onlyIf then return {'PAW_NOT_RECORDED', old or ''} end
  local oldStatus, oldTarget, oldName = item.st, pawItemTarget(item, itemKey), item.tn
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
  local json = pawEncodeItem(item)
  local target = pawItemTarget(item, itemKey)
  redis.call('HSET', itemsKey, itemKey, json)
  if not old then redis.call('HINCRBY', runKey, 'count:total', 1) end
  local newStatus = item.st
  if oldStatus ~= newStatus then
    if oldStatus then
      redis.call('HINCRBY', runKey, 'count:' .. oldStatus, -1)
      if pawIndexedItemStatuses[oldStatus] then
        redis.call('SREM', base .. ':items:' .. runId .. ':' .. oldStatus, itemKey)
      end
    end
    redis.call('HINCRBY', runKey, 'count:' .. newStatus, 1)
    if pawIndexedItemStatuses[newStatus] then
      redis.call('SADD', base .. ':items:' .. runId .. ':' .. newStatus, itemKey)
    end
    if target then
      pawRecordCoverage(runKey, base, runId, fireMs, target, newStatus,
        pawUnmarkItemKey(item.em or item.rs, itemKey), nowMs)
    end
  end
  -- The member format is targetMember() in outcome-keys.ts.
  local function member(target)
    if itemKey == target then return runId end
    return runId .. ' ' .. itemKey
  end
  if oldTarget and oldTarget ~= target then
    redis.call('ZREM', base .. ':target:' .. oldTarget, member(oldTarget))
  end
  if target and target ~= oldTarget then
    redis.call('ZADD', base .. ':target:' .. target, fireMs, member(target))
  end
  -- The name index follows what an item says when it says something new (not every update).
  if target and item.tn and (item.tn ~= oldName or target ~= oldTarget) then
    redis.call('HSET', base .. ':target-names', string.lower(item.tn), target)
  end
  local counts = redis.call('HMGET', runKey, 'count:total', 'count:queued', 'count:running',
    'count:succeeded', 'count:failed', 'count:skipped', 'count:timed-out', 'count:canceled')
  local reply = {oldStatus or '', json}
  for i = 1, #counts do reply[#reply + 1] = counts[i] or '0' end
  -- The last item to end finishes its run in the same step: a crash between the two writes
  -- would leave a run whose items have all ended running for ever. Not while the run is fanning
  -- out: its lanes may end every item recorded so far while the next page is still being read.
  if finishIfLast == '1' and oldStatus ~= newStatus and newStatus ~= 'queued' and newStatus ~= 'running'
      and (tonumber(counts[2]) or 0) + (tonumber(counts[3]) or 0) == 0
      and redis.call('HEXISTS', runKey, 'fanning-out') == 0 then
    local finished = pawFinishRun(runKey, base, runId, nowMs, '', '', '', '')
    for i = 1, #finished do reply[#reply + 1] = finished[i] end
  end
  return reply
end
