--[[
  Ends a pack (src/outcomes/run-packer.ts): when the packer's token still holds (no write came in
  since beginPack: a writer clears it, includes/runPacked.lua), the packed chunks, written
  beforehand, take the place of the items hash in one step.

  Input:
    KEYS[1] the run:            `<base>:run:<runId>`
    KEYS[2] its items:          `<base>:items:<runId>`
    KEYS[3] its packed chunks:  `<base>:packed:<runId>`
    KEYS[4] their index:        `<base>:packed-index:<runId>`
    KEYS[5] the runs to pack:   `<base>:unpacked`

    ARGV[1] run id
    ARGV[2] the packer's token
    ARGV[3] how many items the chunks hold
    ARGV[4] how many chunks

  Output:
    'ok'; 'lost' when the token no longer holds or the items changed (nothing changed: the caller
    removes its chunks)
]]
local runKey, itemsKey, packedKey, indexKey, unpackedKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local runId, token, items, chunks = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
if redis.call('HGET', runKey, 'packing') ~= token then return 'lost' end
if redis.call('HLEN', itemsKey) ~= items or redis.call('HLEN', packedKey) ~= chunks
    or redis.call('ZCARD', indexKey) ~= chunks then
  return 'lost'
end
redis.call('HDEL', runKey, 'packing')
redis.call('ZREM', unpackedKey, runId)
if chunks > 0 then
  -- UNLINK: Redis frees a night's items hash off its main thread.
  redis.call('UNLINK', itemsKey)
  redis.call('HSET', runKey, 'packed', chunks)
end
return 'ok'
