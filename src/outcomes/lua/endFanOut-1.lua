--[[
  The end of a run's fan-out (a snapshot run's items created page by page, createItems-2.lua with
  its `fanning-out` field): clears the field and, in the same step, finishes the run when none of
  its items is queued or running (else its last item to end finishes it,
  includes/recordItem.lua). Between the two scripts exactly one finishes the run: no window where
  both or neither do. Safe to repeat.

  With an error (the fan-out failed for good):
  - items were recorded already (the run is fanning out, or has items): the error is recorded on
    the run (`errorCode`, `errorMessage`) and the field cleared; the items recorded go on, and the
    run ends `failed` with the error when the last of them ends (pawFinishRun derives `failed`
    from the error on record), or now when none is queued or running;
  - none was: the run is finished `failed` with the error now.

  Input:
    KEYS[1] the run: `<base>:run:<runId>`

    ARGV[1] run id
    ARGV[2] now (epoch ms)
    ARGV[3] error code ('' for none: the fan-out ended well)
    ARGV[4] error message ('' for none)
    ARGV[5] base (`<prefix>:outcomes`)
    ARGV[6] '' or the time of a worker's start deferred to this write

  Output:
    {'', 'PAW_GOES_ON'} when the run goes on (items left to end); else pawFinishRun's reply (the
    final status, the status before the call, ...the run's fields as they are now, flat); {'', ''}
    when there is no such run
]]
--- @include "outcomes/lua/includes/finishRun.lua"

local runKey, runId, nowMs = KEYS[1], ARGV[1], ARGV[2]
local errorCode, errorMessage, base, startMs = ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local state = redis.call('HMGET', runKey, 'fireMs', 'fanning-out', 'count:total', 'count:queued',
  'count:running', 'status')
if not state[1] then return {'', ''} end
local fanningOut = state[2] ~= false
local recorded = fanningOut or (tonumber(state[3]) or 0) > 0
local active = (tonumber(state[4]) or 0) + (tonumber(state[5]) or 0)
redis.call('HDEL', runKey, 'fanning-out')
if errorCode ~= '' and not recorded then
  return pawFinishRun(runKey, base, runId, nowMs, 'failed', errorCode, errorMessage, startMs)
end
if errorCode ~= '' and (state[6] == 'queued' or state[6] == 'running') then
  redis.call('HSET', runKey, 'errorCode', errorCode, 'errorMessage', errorMessage)
end
if active > 0 then
  if startMs ~= '' then
    -- A start deferred to this write (see src/outcomes/deferred-starts.ts).
    local run = pawReadRun(runKey)
    local started = pawStarted(run, startMs)
    if started then redis.call('HSET', runKey, unpack(started)) end
  end
  return {'', 'PAW_GOES_ON'}
end
return pawFinishRun(runKey, base, runId, nowMs, '', '', '', startMs)
