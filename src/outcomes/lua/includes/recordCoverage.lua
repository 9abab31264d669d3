--[[
  pawRecordCoverage(runKey, base, runId, fireMs, targetId, status, reason, nowMs): keeps a
  target's latest outcome per definition, the index `paw coverage` reads (so that it never scans
  runs). Called by pawRecordItem when an item's status changes; only final statuses count.

  Key (in the run's slot, as every outcome key):
    `<base>:coverage:<definitionId>` hash: target id → compact JSON (CoverageIndex in
    src/outcomes/coverage-index.ts reads it):
      s   the last final status         r   the run that recorded it     f   that run's fire (ms)
      n   failureStreak: consecutive runs whose item did not succeed, that one included
      p   the streak before run r (a run's item recorded again counts once)
      ok  lastSuccessAt (ms)           w   the last reason ('' on success)
      ss  skipped since (ms), while the last status is skipped

  An item of an older run than the one recorded (a late write) changes nothing.
]]
local function pawRecordCoverage(runKey, base, runId, fireMs, targetId, status, reason, nowMs)
  if status == 'queued' or status == 'running' then return end
  local definitionId = redis.call('HGET', runKey, 'definitionId')
  if not definitionId then return end
  local key = base .. ':coverage:' .. definitionId
  local fire = tonumber(fireMs) or 0
  local old = redis.call('HGET', key, targetId)
  local entry = {}
  if old then entry = cjson.decode(old) end
  if entry.r ~= runId then
    if (tonumber(entry.f) or 0) > fire then return end
    entry.p = tonumber(entry.n) or 0
    entry.r = runId
    entry.f = fire
  end
  local now = tonumber(nowMs)
  if status == 'succeeded' then
    entry.n = 0
    entry.ok = now
    entry.w = ''
  else
    entry.n = (tonumber(entry.p) or 0) + 1
    entry.w = reason or ''
  end
  if status == 'skipped' then
    if entry.s ~= 'skipped' or not entry.ss then entry.ss = now end
  else
    entry.ss = nil
  end
  entry.s = status
  redis.call('HSET', key, targetId, cjson.encode(entry))
end
