--[[
  A window takes its hold before pausing (the intent, recorded before the side effect).

  Input:
    KEYS[1] the hold record (`WindowKeys.hold`)
    KEYS[2] the run's holds (`WindowKeys.runHolds`)
    KEYS[3] the run's window-ended marker (`WindowKeys.ended`)

    ARGV[1] run id
    ARGV[2] the window's end (epoch ms)
    ARGV[3] the pause status observed on the platform (NOT_PAUSED, PAUSED, UNKNOWN, ...)
    ARGV[4] now (epoch ms)
    ARGV[5] the run's holds field
    ARGV[6] the run's holds value

  Output:
    {decision, owner, other holders}:
    - `window-over`: this run's window already ended (its resume started): do not pause;
    - `held`: this run already holds it (a retry): the decision made then stands;
    - `joined`: other windows hold it; `owner` says whether paw's pause stands (an outside
      pause that has since been lifted, observed NOT_PAUSED, becomes paw's);
    - `created`: the first window: `paw` if it was NOT_PAUSED, `other` if PAUSED;
    - `unknown`: nobody holds it and its state is UNKNOWN (or anything else): no record is made.
]]
if redis.call('EXISTS', KEYS[3]) == 1 then return {'window-over', '', 0} end
local me = 'h:' .. ARGV[1]
local function others()
  local count = 0
  for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(field, 1, 2) == 'h:' and field ~= me then count = count + 1 end
  end
  return count
end
if redis.call('HEXISTS', KEYS[1], me) == 1 then
  return {'held', redis.call('HGET', KEYS[1], 'owner') or 'paw', others()}
end
local decision
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner then
  decision = 'joined'
  if owner == 'other' and ARGV[3] == 'NOT_PAUSED' then
    owner = 'paw'
    redis.call('HSET', KEYS[1], 'owner', owner)
  end
else
  decision = 'created'
  if ARGV[3] == 'NOT_PAUSED' then owner = 'paw'
  elseif ARGV[3] == 'PAUSED' then owner = 'other'
  else return {'unknown', '', 0} end
  redis.call('HSET', KEYS[1], 'owner', owner, 'since', ARGV[4])
end
redis.call('HSET', KEYS[1], me, ARGV[2])
redis.call('HSET', KEYS[2], ARGV[5], ARGV[6])
return {decision, owner, others()}
