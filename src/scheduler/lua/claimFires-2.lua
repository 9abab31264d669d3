--[[
  Claims a definition's due fires up to a time for one scheduler replica: unless the cursor
  already covers them, or another replica holds the definition's lease.

  Input:
    KEYS[1] the cursors: `<prefix>:scheduler:cursors` (definition id -> last fire handled, ms)
    KEYS[2] the definition's lease

    ARGV[1] definition id
    ARGV[2] up to (epoch ms, the fire included)
    ARGV[3] owner (this replica)
    ARGV[4] lease length (ms)

  Output:
    {'handled', cursor}; {'held', holder}; {'claimed', cursor or '' when none yet}
]]
local cursor = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if cursor and cursor >= tonumber(ARGV[2]) then return {'handled', tostring(cursor)} end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[3] then return {'held', holder} end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
if cursor then return {'claimed', tostring(cursor)} end
return {'claimed', ''}
