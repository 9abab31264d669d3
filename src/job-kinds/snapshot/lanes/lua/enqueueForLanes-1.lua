--[[
  Queues items for a run's lanes, unless they are queued already or a lane has taken them (a
  repeated fan-out leaves an item where it is).

  Input:
    KEYS[1] the run's lane queue: `<base>:lane-queue:<runId>`

    ARGV[1] the key of the run's lanes but their number: lane n is `<ARGV[1]><n>`
            (`<base>:lane:<runId>:`; the lanes share the lane queue's hash tag)
    ARGV[2] how many lanes the run has
    ARGV[3...] the item keys

  Output:
    how many items were queued
]]
local queueKey, lanePrefix, lanes = KEYS[1], ARGV[1], tonumber(ARGV[2])
local fresh = {}
for i = 3, #ARGV do
  local taken = redis.call('ZSCORE', queueKey, ARGV[i])
  for lane = 0, lanes - 1 do
    if taken then break end
    taken = redis.call('ZSCORE', lanePrefix .. lane, ARGV[i])
  end
  if not taken then
    fresh[#fresh + 1] = 0
    fresh[#fresh + 1] = ARGV[i]
  end
end
for i = 1, #fresh, 1000 do
  redis.call('ZADD', queueKey, unpack(fresh, i, math.min(i + 999, #fresh)))
end
return #fresh / 2
