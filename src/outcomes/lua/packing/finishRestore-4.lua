--[[
  Ends an unpack (src/outcomes/run-packer.ts): with every item back in the items hash
  (restoreItems-2.lua), the chunks go and the run is writable, and it joins the runs to pack
  again.

  Input:
    KEYS[1] the run:            `<base>:run:<runId>`
    KEYS[2] its packed chunks:  `<base>:packed:<runId>`
    KEYS[3] their index:        `<base>:packed-index:<runId>`
    KEYS[4] the runs to pack:   `<base>:unpacked`

    ARGV[1] the run's `packed` field as read
    ARGV[2] run id
    ARGV[3] now (epoch ms)

  Output:
    1 when this call ended the unpack, 0 when another had (or the run is gone)
]]
if redis.call('HGET', KEYS[1], 'packed') ~= ARGV[1] then return 0 end
redis.call('UNLINK', KEYS[2], KEYS[3])
redis.call('HDEL', KEYS[1], 'packed')
redis.call('ZADD', KEYS[4], ARGV[3], ARGV[2])
return 1
