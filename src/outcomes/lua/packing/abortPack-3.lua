--[[
  Gives up a pack (src/outcomes/run-packer.ts): removes the chunks written for it, unless the run
  is packed (they are then its items), and the packer's token if it still holds.

  Input:
    KEYS[1] the run:            `<base>:run:<runId>`
    KEYS[2] its packed chunks:  `<base>:packed:<runId>`
    KEYS[3] their index:        `<base>:packed-index:<runId>`

    ARGV[1] the packer's token

  Output:
    1 when the chunks were removed, else 0
]]
local runKey, packedKey, indexKey = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HGET', runKey, 'packing') == ARGV[1] then redis.call('HDEL', runKey, 'packing') end
if redis.call('HEXISTS', runKey, 'packed') == 1 then return 0 end
redis.call('UNLINK', packedKey, indexKey)
return 1
