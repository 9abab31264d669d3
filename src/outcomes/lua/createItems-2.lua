--[[
  Creates the items of a run that do not exist yet, many at once (a snapshot run's fan-out): one
  script and a handful of commands per batch instead of a script per item. An item that exists
  is left exactly as it is, so a repeated fan-out never moves an item back to queued.

  Input:
    KEYS[1] the run:   `<base>:run:<runId>`
    KEYS[2] its items: `<base>:items:<runId>`

    ARGV[1] base (`<prefix>:outcomes`)
    ARGV[2] run id
    ARGV[3] now (epoch ms)
    ARGV[4] '' or the time of a worker's start of the run deferred to this write
    ARGV[5] '1': the run is fanning out (its items are still being created, page by page): its
            `fanning-out` field is set, in this step, before any item is created, so that no
            item that ends meanwhile finishes the run (includes/recordItem.lua; the fan-out's
            end clears it, endFanOut-1.lua); not on a run that has ended; '' leaves the field
            as it is
    ARGV[6...] per item: its key, then its stored JSON (compact names, `ua` included)

  Output:
    how many items were created; a Redis error reply `PAW_NO_SUCH_RUN` when there is no run,
    `PAW_RUN_PACKED` when its items are packed (includes/runPacked.lua)
]]
--- @include "outcomes/lua/includes/runHash.lua"
--- @include "outcomes/lua/includes/indexedItemStatuses.lua"
--- @include "outcomes/lua/includes/recordCoverage.lua"
--- @include "outcomes/lua/includes/storedItem.lua"
--- @include "outcomes/lua/includes/runPacked.lua"

local runKey, itemsKey = KEYS[1], KEYS[2]
local base, runId, startMs = ARGV[1], ARGV[2], ARGV[4]
local run = redis.call('HMGET', runKey, 'fireMs', 'status', 'startedAt', 'attempts', 'packed', 'packing')
local fireMs = run[1]
if not fireMs then return redis.error_reply('PAW_NO_SUCH_RUN') end
if pawPackedFlags(run[5], run[6]) then return redis.error_reply('PAW_RUN_PACKED') end
if startMs ~= '' then
  -- A start deferred to this write (see src/outcomes/deferred-starts.ts).
  local started = pawStarted({status = run[2], startedAt = run[3] or nil, attempts = run[4] or nil}, startMs)
  if started then redis.call('HSET', runKey, unpack(started)) end
end
if ARGV[5] == '1' and (run[2] == 'queued' or run[2] == 'running') then
  redis.call('HSET', runKey, 'fanning-out', '1')
end
local keys = {}
for i = 6, #ARGV, 2 do keys[#keys + 1] = ARGV[i] end
local existing = redis.call('HMGET', itemsKey, unpack(keys))
local fields, names, perStatus, statusSets = {}, {}, {}, {}
local created = 0
for n = 1, #keys do
  if not existing[n] then
    local itemKey, json = keys[n], ARGV[5 + 2 * n]
    local item = cjson.decode(json)
    fields[#fields + 1] = itemKey
    fields[#fields + 1] = json
    created = created + 1
    perStatus[item.st] = (perStatus[item.st] or 0) + 1
    if pawIndexedItemStatuses[item.st] then
      statusSets[item.st] = statusSets[item.st] or {}
      table.insert(statusSets[item.st], itemKey)
    end
    local target = pawItemTarget(item, itemKey)
    if target then
      local member = runId
      if itemKey ~= target then member = runId .. ' ' .. itemKey end
      redis.call('ZADD', base .. ':target:' .. target, fireMs, member)
      pawRecordCoverage(runKey, base, runId, fireMs, target, item.st,
        pawUnmarkItemKey(item.em or item.rs, itemKey), ARGV[3])
      if item.tn then
        names[#names + 1] = string.lower(item.tn)
        names[#names + 1] = target
      end
    end
  end
end
if created > 0 then
  redis.call('HSET', itemsKey, unpack(fields))
  redis.call('HINCRBY', runKey, 'count:total', created)
  for status, count in pairs(perStatus) do
    redis.call('HINCRBY', runKey, 'count:' .. status, count)
  end
  for status, members in pairs(statusSets) do
    redis.call('SADD', base .. ':items:' .. runId .. ':' .. status, unpack(members))
  end
  if #names > 0 then redis.call('HSET', base .. ':target-names', unpack(names)) end
end
return created
