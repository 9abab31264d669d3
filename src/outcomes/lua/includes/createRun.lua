--[[
  pawCreateRun(runKey, runsKey, runsOfKey, activeKey, runId, fireMs, active, status, fields):
  creates a run unless one with its id exists.

    runKey     `<base>:run:<runId>`
    runsKey    `<base>:runs`: every run id by fire time
    runsOfKey  `<base>:runs:def:<definitionId>`: the definition's run ids by fire time
    activeKey  `<base>:active:<definitionId>`: its runs still queued or running
    active     '1' when the run is created queued (it goes into activeKey), else '0'
    fields     a table of field/value pairs (runId and status among them)

  Returns {1, status} when it created the run, {0, the existing run's status} when one existed.
]]
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
