--[[
  An active step job's part in a script that records its progress (a snapshot lane's write:
  src/job-kinds/snapshot/lanes/lua/writeLane-16.lua): BullMQ's own moveToDelayed, and the check
  that the job is still the caller's. BullMQ's script reads its KEYS and ARGV by position, so a
  script that includes this one takes moveToDelayed's first, in its order
  (RedisQueueBackend.moveToDelayedArgs; src/queue/delayed-move.ts builds them):

    KEYS[1] marker       KEYS[5] the job           KEYS[9]  wait
    KEYS[2] active       KEYS[6] events            KEYS[10] limiter
    KEYS[3] prioritized  KEYS[7] meta              KEYS[11] pc (prioritized counter)
    KEYS[4] delayed      KEYS[8] stalled

    ARGV[1] the queue's key prefix   ARGV[4] the lock token   ARGV[7] fields to update ('')
    ARGV[2] now (epoch ms)           ARGV[5] delay (ms)        ARGV[8] fetch next ('0')
    ARGV[3] job id                   ARGV[6] skip attempt ('1') ARGV[9] options ('')

  pawJobOwned(): 0 when the job exists and its lock holds the caller's token (BullMQ keeps it at
    `<job key>:lock`), else BullMQ's code: -1 no such job, -2 its lock is gone, -6 its lock is
    another's. An owned job's count of stalls (BullMQ's `stc`) starts again: a step job that
    records progress is not the poisoned job that count is there to stop, and a lane lives for a
    whole run, through any number of worker kills.

  pawMoveToDelayed(delay, stayIfDueWithinMs): moves the job to the delayed set for `delay` ms, as
    `job.moveToDelayed` would (no attempt used), and returns 1; a negative BullMQ code when it
    could not. With `stayIfDueWithinMs` ('' never) and a delay within it, the job stays the
    caller's instead (2: no move, its lock kept) unless another job of the queue waits for a
    worker's slot (in the wait list, prioritized, or delayed and due) or the queue is paused:
    moving gives them their turn, and with nobody waiting it would only hand the job to whichever
    worker fetches first, whose JIT has to warm up to it again (docs/worker.md, "A snapshot run").
]]
--- @fragment bullmqMoveToDelayed

local function pawJobOwned()
  local jobKey = KEYS[5]
  if redis.call('EXISTS', jobKey) ~= 1 then return -1 end
  local lock = redis.call('GET', jobKey .. ':lock')
  if not lock then return -2 end
  if lock ~= ARGV[4] then return -6 end
  redis.call('HDEL', jobKey, 'stc')
  return 0
end

local function pawMoveToDelayed(delay, stayIfDueWithinMs)
  ARGV[5] = tostring(delay)
  if stayIfDueWithinMs ~= '' and delay <= tonumber(stayIfDueWithinMs) then
    local dueScore = (tonumber(ARGV[2]) + 1) * 0x1000 - 1
    if redis.call('LLEN', KEYS[9]) == 0 and redis.call('ZCARD', KEYS[3]) == 0
      and #redis.call('ZRANGEBYSCORE', KEYS[4], 0, dueScore, 'LIMIT', 0, 1) == 0
      and redis.call('HEXISTS', KEYS[7], 'paused') == 0 then
      return 2
    end
  end
  local moved = bullmqMoveToDelayed()
  if moved < 0 then return moved end
  return 1
end
