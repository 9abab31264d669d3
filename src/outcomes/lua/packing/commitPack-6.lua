--[[
  Ends a pack (src/outcomes/run-packer.ts): when the packer's token still holds (no write came in
  since beginPack: a writer clears it, includes/runPacked.lua), the chunks of the items that
  succeeded and the hash of those that stay, both written beforehand, take the place of the items
  hash in one step.

  Input:
    KEYS[1] the run:                `<base>:run:<runId>`
    KEYS[2] its items:              `<base>:items:<runId>`
    KEYS[3] its packed chunks:      `<base>:packed:<runId>`
    KEYS[4] their index:            `<base>:packed-index:<runId>`
    KEYS[5] the runs to pack:       `<base>:unpacked`
    KEYS[6] the items that stay:    `<base>:packing:<runId>`

    ARGV[1] run id
    ARGV[2] the packer's token
    ARGV[3] how many items the chunks hold
    ARGV[4] how many chunks
    ARGV[5] how many items stay

  Output:
    'ok'; 'lost' when the token no longer holds or the items changed (nothing changed: the caller
    removes what it wrote)
]]
local runKey, itemsKey, packedKey, indexKey, unpackedKey, stayKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local runId, token = ARGV[1], ARGV[2]
local packed, chunks, stay = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
if redis.call('HGET', runKey, 'packing') ~= token then return 'lost' end
if redis.call('HLEN', itemsKey) ~= packed + stay or redis.call('HLEN', packedKey) ~= chunks
    or redis.call('ZCARD', indexKey) ~= chunks or redis.call('HLEN', stayKey) ~= stay then
  return 'lost'
end
redis.call('HDEL', runKey, 'packing')
redis.call('ZREM', unpackedKey, runId)
if chunks == 0 then
  -- Nothing succeeded: the items stay as they are.
  redis.call('UNLINK', stayKey)
  return 'ok'
end
-- UNLINK: Redis frees a night's items hash off its main thread; RENAME onto a key that exists
-- would free it on the main thread.
redis.call('UNLINK', itemsKey)
if stay > 0 then redis.call('RENAME', stayKey, itemsKey) end
redis.call('HSET', runKey, 'packed', chunks)
return 'ok'
