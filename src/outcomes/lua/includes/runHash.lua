--[[
  A run's hash (`<base>:run:<runId>`), as the run scripts read and answer it.

  pawReadRun(runKey): the run's fields as a table; nil when there is no such run.
  pawRunReply(head, run): `head` with the run's fields appended, flat (field, value, ...): what
    the TypeScript reads back with runFromHash.
  pawStarted(run, startMs): a worker's start applied to a queued or running run (running, its
    first start time kept, one more attempt); returns the fields to write, nil for a run that has
    ended.
]]
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
