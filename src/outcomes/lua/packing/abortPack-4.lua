--[[
  Gives up a pack (src/outcomes/run-packer.ts): removes what was written for it, unless the run is
  packed (the chunks are then its items), and the packer's token if it still holds.

  Input:
    KEYS[1] the run:              `<base>:run:<runId>`
    KEYS[2] its packed chunks:    `<base>:packed:<runId>`
    KEYS[3] their index:          `<base>:packed-index:<runId>`
    KEYS[4] the items that stay:  `<base>:packing:<runId>`

    ARGV[1] the packer's token

  Output:
    1 when the chunks were removed, else 0
]]
local runKey, packedKey, indexKey, stayKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('HGET', runKey, 'packing') == ARGV[1] then redis.call('HDEL', runKey, 'packing') end
redis.call('UNLINK', stayKey)
if redis.call('HEXISTS', runKey, 'packed') == 1 then return 0 end
redis.call('UNLINK', packedKey, indexKey)
return 1
