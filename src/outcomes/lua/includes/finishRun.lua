--[[
  pawFinishRun(runKey, base, runId, nowMs, wanted, errorCode, errorMessage, startMs): finishes a
  run.

    wanted     the final status; '' derives it from the item counters (failed if any item failed
               or timed out, or the run has an error on record already (a fan-out that failed
               after some items were recorded, endFanOut-1.lua), else canceled if any was, else
               failed if any is still queued or running, else succeeded)
    errorCode, errorMessage  '' for none
    startMs    '' or the time of a worker's start deferred to this write (pawStarted)

  A run recorded skipped or missed stays so, and so does an ended run when the status is to be
  derived (a repeated step). The run leaves its definition's active runs
  (`<base>:active:<definitionId>`) and joins the runs whose items are to be packed
  (`<base>:unpacked`, by the time it ended: src/outcomes/run-packer.ts).

  Returns {final status, status before the call, ...the run's fields as they are now, flat}
  ({'', ''} when there is no such run): the caller tells the call that ended the run from a
  repeat, and reports the run without reading it again.
]]
--- @include "outcomes/lua/includes/runHash.lua"

local function pawFinishRun(runKey, base, runId, nowMs, wanted, errorCode, errorMessage, startMs)
  local run = pawReadRun(runKey)
  if not run then return {'', ''} end
  local current = run.status or ''
  local function reply(final) return pawRunReply({final, current}, run) end
  -- A start deferred to this write (see src/outcomes/deferred-starts.ts).
  local started = nil
  if startMs ~= '' then started = pawStarted(run, startMs) end
  if current == 'skipped' or current == 'missed' then return reply(current) end
  -- Deriving the end again of a run that has ended changes nothing (a repeated step).
  if wanted == '' and current ~= 'queued' and current ~= 'running' then return reply(current) end
  local status = wanted
  if status == '' then
    local function count(name) return tonumber(run['count:' .. name] or '0') end
    if count('failed') + count('timed-out') > 0 or (run.errorCode or '') ~= '' then status = 'failed'
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
  redis.call('ZADD', base .. ':unpacked', nowMs, runId)
  return reply(status)
end
