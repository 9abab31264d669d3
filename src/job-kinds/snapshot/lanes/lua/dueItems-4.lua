--[[
  A lane's share of the run's lane queue and its own items due by a time, with their records, in
  one step. Items are taken from the queue first (a trigger gets a snapshot started; a poll only
  learns of one), into the lane, due again at a lease's end should nobody write sooner; the
  lane's own due items make up the rest.

  Input:
    KEYS[1] the run:            `<base>:run:<runId>`
    KEYS[2] its items:          `<base>:items:<runId>`
    KEYS[3] the lane:           `<base>:lane:<runId>:<n>`
    KEYS[4] the run's lane queue: `<base>:lane-queue:<runId>`

    ARGV[1] the time due items are due by (epoch ms)
    ARGV[2] the most items to return
    ARGV[3] the lease's end (epoch ms): when an item taken from the queue is due in the lane
    ARGV[4] the most items to take from the queue

  Output:
    {''} when there is no such run, else {the run's status, the lane's size, the due time of the
    lane's first item not returned ('' when none), the items still in the lane queue, then for
    each item returned: its key, its due time and its stored JSON ('' when there is no record)},
    those from the queue first, then the lane's, the earliest first
]]
local runKey, itemsKey, laneKey, queueKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local upTo, limit, leaseUntil, fromQueueMost = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local status = redis.call('HGET', runKey, 'status')
if not status then return {''} end
local taken = {}
if tonumber(fromQueueMost) > 0 then taken = redis.call('ZPOPMIN', queueKey, fromQueueMost) end
local returned = {}
for i = 1, #taken, 2 do
  returned[#returned + 1] = taken[i]
  returned[#returned + 1] = leaseUntil
end
local fromQueue = #returned / 2
local due = {}
if fromQueue < limit then
  due = redis.call('ZRANGEBYSCORE', laneKey, '-inf', upTo, 'WITHSCORES', 'LIMIT', 0, limit - fromQueue)
end
local after = redis.call('ZRANGE', laneKey, #due / 2, #due / 2, 'WITHSCORES')
for i = 1, #due do returned[#returned + 1] = due[i] end
for i = 1, #taken, 2 do redis.call('ZADD', laneKey, leaseUntil, taken[i]) end
local count = #returned / 2
local reply = {status, redis.call('ZCARD', laneKey), after[2] or '', redis.call('ZCARD', queueKey)}
if count > 0 then
  local members = {}
  for i = 1, #returned, 2 do members[#members + 1] = returned[i] end
  local stored = redis.call('HMGET', itemsKey, unpack(members))
  for i = 1, count do
    reply[#reply + 1] = members[i]
    reply[#reply + 1] = returned[2 * i]
    reply[#reply + 1] = stored[i] or ''
  end
end
return reply
