--[[
  A window's end: what releasing its hold means. Holders whose window has ended are dropped first
  (their resume is late or was lost; the SLA Domain must stay paused only for windows still open).

  Input:
    KEYS[1] the hold record (`WindowKeys.hold`)

    ARGV[1] run id
    ARGV[2] now (epoch ms)

  Output:
    {result, owner, others}:
    - `not-held`: this run holds nothing here (never paused it, or already released);
    - `still-held`: other open windows hold it: this run's hold is removed, nothing to resume;
    - `resume`: this run is the last and paw owns the pause: resume it, then call finishHold (the
      hold stays until then, so a crash before the resume repeats it);
    - `left-alone`: the last, but the pause was someone else's: the record is deleted, no resume.
]]
local me = 'h:' .. ARGV[1]
if redis.call('HEXISTS', KEYS[1], me) == 0 then return {'not-held', '', 0} end
local now = tonumber(ARGV[2])
local others = 0
local fields = redis.call('HGETALL', KEYS[1])
for i = 1, #fields, 2 do
  local field = fields[i]
  if string.sub(field, 1, 2) == 'h:' and field ~= me then
    if tonumber(fields[i + 1]) <= now then
      redis.call('HDEL', KEYS[1], field)
    else
      others = others + 1
    end
  end
end
local owner = redis.call('HGET', KEYS[1], 'owner') or 'paw'
if others > 0 then
  redis.call('HDEL', KEYS[1], me)
  return {'still-held', owner, others}
end
if owner == 'paw' then return {'resume', owner, 0} end
redis.call('DEL', KEYS[1])
return {'left-alone', owner, 0}
