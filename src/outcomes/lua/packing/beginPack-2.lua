--[[
  Starts packing a finished run's items (src/outcomes/run-packer.ts): marks the run `packing` with
  the packer's token, from which moment every script that writes its items refuses
  (includes/runPacked.lua), so what the packer reads stays what it commits.

  Input:
    KEYS[1] the run:           `<base>:run:<runId>`
    KEYS[2] the runs to pack:  `<base>:unpacked`

    ARGV[1] run id
    ARGV[2] the packer's token: `<epoch ms>:<random>`
    ARGV[3] now (epoch ms)
    ARGV[4] how old another packer's token must be to be taken over (ms): a packer that died

  Output:
    'ok' (packing); 'none' (no such run), 'packed' (packed already), 'active' (queued or running:
    it joins the runs to pack again when it ends) or 'busy' (another packer is at it)
]]
local runKey, unpackedKey = KEYS[1], KEYS[2]
local runId, token, nowMs, staleMs = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local run = redis.call('HMGET', runKey, 'status', 'packed', 'packing')
if not run[1] then
  redis.call('ZREM', unpackedKey, runId)
  return 'none'
end
if run[1] == 'queued' or run[1] == 'running' then
  redis.call('ZREM', unpackedKey, runId)
  return 'active'
end
if run[2] then
  redis.call('ZREM', unpackedKey, runId)
  return 'packed'
end
if run[3] then
  local since = tonumber(string.match(run[3], '^(%d+):')) or 0
  if nowMs - since < staleMs then return 'busy' end
end
redis.call('HSET', runKey, 'packing', token)
return 'ok'
