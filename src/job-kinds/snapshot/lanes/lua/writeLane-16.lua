--[[
  A snapshot lane's write: while the lane's job is still this worker's, records its items (each
  as src/outcomes/lua/recordItem-2.lua would) and moves each in the lane, then, when asked, moves
  the job to the delayed set until the lane's earliest item is due (at once while the run's lane
  queue has items), or keeps it (src/queue/lua/includes/delayedMove.lua). The records and the
  move land together, in one round trip, or not at all.

  Every item a lane works on is in the hands of one step at a time, and that step holds the
  item's fence: a number drawn from the run's sequence (its step fences' '' field, which no item
  key can be) when the step takes the item. A write of a step carries the fence it was given, and
  is refused for an item whose fence is no longer that one (another step took the item since):
  a late answer, an adoption or an end from a step that lost the item is not merged, it is
  dropped, with the item's place in the lane. An item's fence is forgotten when it leaves the
  lane; a number is never drawn twice, so a forgotten fence is never matched again.

  Input:
    KEYS[1..11] BullMQ's moveToDelayed's, in its order (delayedMove.lua names them)
    KEYS[12] the run:              `<base>:run:<runId>`
    KEYS[13] its items:            `<base>:items:<runId>`
    KEYS[14] the lane:             `<base>:lane:<runId>:<n>`
    KEYS[15] the run's lane queue: `<base>:lane-queue:<runId>`
    KEYS[16] the run's step fences: `<base>:lane-fences:<runId>` (item key -> fence; '' -> the
             last number drawn)

    ARGV[1..9] BullMQ's moveToDelayed's (delayedMove.lua names them; the delay is set here)
    ARGV[10] '1' to move the job to the delayed set after the records, '0' to keep it
    ARGV[11] with a move: stay instead if the lane is due within this long (ms; '' never)
    ARGV[12] base (`<prefix>:outcomes`)
    ARGV[13] run id
    ARGV[14] now (epoch ms)
    ARGV[15] '' or the time of a worker's start of the run deferred to this write
    ARGV[16...] seven per item: its key; its update as stored JSON ('' records nothing: only its
                place in the lane changes); the status it must have ('' any); '1' to merge
                details; '1' to finish the run if it is the last to end; when it is next due in
                the lane (epoch ms; '' unchanged, '-' out of the lane); its fence: '' none
                (nothing checked or drawn), 'take' (a new step takes the item: a new fence is
                drawn once the write is made), 'take:<n>' (the same, only while its fence is
                <n>: the step that holds it hands it to the next), or '<n>' (only while its fence
                is <n>). An item's place moves only when its write was made.

  Output:
    {'PAW_STEP_REFUSED', BullMQ's code} when the job is not this worker's (nothing recorded);
    else {what became of the job (0 neither moved nor kept: not asked, or nothing is left in the
    lane nor in the queue and the run is not fanning out; 1 moved; 2 kept; a negative BullMQ code: it could not be moved), then
    for each item: its fence after the write ('' when it has none; 'PAW_STALE_STEP' when its
    fence was not the one given: nothing written for it), the length of its record's reply (0
    when nothing was to be recorded) and that reply (pawRecordItem's, in
    src/outcomes/lua/includes/recordItem.lua)}; a Redis error reply `PAW_RUN_PACKED` (nothing
    recorded) when the run's items are packed
]]
--- @include "queue/lua/includes/delayedMove.lua"
--- @include "outcomes/lua/includes/recordItem.lua"

local owned = pawJobOwned()
if owned < 0 then return {'PAW_STEP_REFUSED', tostring(owned)} end
local runKey, itemsKey, laneKey, queueKey, fenceKey = KEYS[12], KEYS[13], KEYS[14], KEYS[15], KEYS[16]
-- Refused before anything is written, as pawRecordItem would refuse each item.
if pawRunPacked(runKey) then return redis.error_reply('PAW_RUN_PACKED') end
local move, stayIfDueWithinMs = ARGV[10], ARGV[11]
local base, runId, nowMs, start = ARGV[12], ARGV[13], ARGV[14], ARGV[15]
local reply = {0}
for i = 16, #ARGV, 7 do
  local itemKey, patch, due, fence = ARGV[i], ARGV[i + 1], ARGV[i + 5], ARGV[i + 6]
  local held = redis.call('HGET', fenceKey, itemKey) or ''
  local take, expected = false, fence
  if string.sub(fence, 1, 4) == 'take' then
    take, expected = true, string.sub(fence, 6)
  end
  if expected ~= '' and expected ~= held then
    reply[#reply + 1] = 'PAW_STALE_STEP'
    reply[#reply + 1] = 0
  else
    local record = nil
    if patch ~= '' then
      record = pawRecordItem(runKey, itemsKey, base, runId, itemKey, nowMs, patch, ARGV[i + 2], ARGV[i + 3], ARGV[i + 4], start)
      if record.err then return record end
      -- A start deferred to this write is recorded once.
      if record[1] ~= 'PAW_NOT_RECORDED' then start = '' end
    end
    local made = record == nil or record[1] ~= 'PAW_NOT_RECORDED'
    if made then
      if due == '-' then
        redis.call('ZREM', laneKey, itemKey)
        redis.call('HDEL', fenceKey, itemKey)
        held = ''
      else
        if due ~= '' then redis.call('ZADD', laneKey, due, itemKey) end
        if take then
          held = tostring(redis.call('HINCRBY', fenceKey, '', 1))
          redis.call('HSET', fenceKey, itemKey, held)
        end
      end
    end
    reply[#reply + 1] = held
    if record == nil then
      reply[#reply + 1] = 0
    else
      reply[#reply + 1] = #record
      for j = 1, #record do reply[#reply + 1] = record[j] end
    end
  end
end
if move == '1' then
  -- The delay is the time to the lane's earliest due item, as it is now that the records are
  -- made; none while the run's lane queue has items to take. While the run is still fanning out
  -- (its run job records and queues its items page by page: src/outcomes/lua/createItems-2.lua),
  -- more items may come into the queue: the lane looks again within FAN_OUT_RECHECK_MS, and does
  -- not complete when it is empty (a lane job that completed between two pages could be left
  -- out of the next page's adding of the lanes, which finds its id still taken, and that page's
  -- items would wait in the queue for no lane).
  local FAN_OUT_RECHECK_MS = 1000
  local fanningOut = redis.call('HEXISTS', runKey, 'fanning-out') == 1
  local delay = 0
  if redis.call('ZCARD', queueKey) == 0 then
    local first = redis.call('ZRANGE', laneKey, 0, 0, 'WITHSCORES')
    if first[2] then
      delay = math.max(0, math.floor(tonumber(first[2]) - tonumber(ARGV[2])))
      if fanningOut then delay = math.min(delay, FAN_OUT_RECHECK_MS) end
    elseif fanningOut then
      delay = FAN_OUT_RECHECK_MS
    else
      return reply
    end
  end
  reply[1] = pawMoveToDelayed(delay, stayIfDueWithinMs)
end
return reply
