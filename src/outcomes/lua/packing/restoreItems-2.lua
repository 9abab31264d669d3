--[[
  Puts some of a packed run's items back in its items hash (src/outcomes/run-packer.ts), while
  the run is still packed as the caller read it: never over an item written since (HSETNX), and
  never for a run restored or trimmed meanwhile.

  Input:
    KEYS[1] the run:   `<base>:run:<runId>`
    KEYS[2] its items: `<base>:items:<runId>`

    ARGV[1] the run's `packed` field as read
    ARGV[2...] per item: its key, its stored JSON

  Output:
    1 when written, 0 when the run is no longer packed as read
]]
if redis.call('HGET', KEYS[1], 'packed') ~= ARGV[1] then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[2], ARGV[i], ARGV[i + 1]) end
return 1
