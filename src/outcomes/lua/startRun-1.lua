--[[
  A worker took a run: a queued or running run is marked running (its first start time kept, one
  more attempt), unless it is still queued past its `startBy` (the definition's
  `schedule.startDeadline`): then it is recorded missed instead, and leaves its definition's
  active runs.

  Input:
    KEYS[1] the run: `<base>:run:<runId>`

    ARGV[1] now (epoch ms)
    ARGV[2] run id
    ARGV[3] base (`<prefix>:outcomes`: the definition's active runs are `<base>:active:<id>`)

  Output:
    {status before the call, '1' if it was just recorded missed else '0', ...the run's fields as
    they are now, flat}; {''} when there is no such run
]]
--- @include "outcomes/lua/includes/runHash.lua"

local runKey, nowMs, runId, base = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local run = pawReadRun(runKey)
if not run then return {''} end
local status = run.status or ''
local missedNow = '0'
local startBy = tonumber(run.startBy or '')
if status == 'queued' and startBy and tonumber(nowMs) > startBy then
  run.status = 'missed'
  run.finishedAt = nowMs
  run.reason = 'no worker took it within its start deadline (' .. (run.startDeadline or '') ..
    ') after its time: the workers were down or busy'
  redis.call('HSET', runKey, 'status', run.status, 'finishedAt', run.finishedAt, 'reason', run.reason)
  redis.call('ZREM', base .. ':active:' .. (run.definitionId or ''), runId)
  missedNow = '1'
else
  local started = pawStarted(run, nowMs)
  if started then redis.call('HSET', runKey, unpack(started)) end
end
return pawRunReply({status, missedNow}, run)
