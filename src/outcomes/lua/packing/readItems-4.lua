--[[
  Some items of a run, packed or not, in one step (src/outcomes/stored-items.ts): a reader never
  sees a run halfway between the two.

  Input:
    KEYS[1] the run:            `<base>:run:<runId>`
    KEYS[2] its items:          `<base>:items:<runId>`
    KEYS[3] its packed chunks:  `<base>:packed:<runId>`
    KEYS[4] their index:        `<base>:packed-index:<runId>`

    ARGV[1...] item keys (a few hundred at most)

  Output:
    not packed: {0, then each item's stored JSON ('' for none)}
    packed: {1, then each item's stored JSON in the items hash ('' for none: the items that did
    not succeed stay there), then for each item not there the number of the chunk that would
    hold it (0 for none) among those that follow, then those chunks}: a chunk holds the items from
    its name (the first item key, in byte order) to the next chunk's
]]
local runKey, itemsKey, packedKey, indexKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local values = redis.call('HMGET', itemsKey, unpack(ARGV))
local packed = redis.call('HGET', runKey, 'packed')
local reply = {0}
if packed then reply[1] = 1 end
for i = 1, #ARGV do reply[i + 1] = values[i] or '' end
if not packed then return reply end
local names, numbers = {}, {}
for i = 1, #ARGV do
  local number = 0
  if not values[i] then
    local name = redis.call('ZREVRANGEBYLEX', indexKey, '[' .. ARGV[i], '-', 'LIMIT', 0, 1)[1]
    if name then
      if not numbers[name] then
        names[#names + 1] = name
        numbers[name] = #names
      end
      number = numbers[name]
    end
  end
  reply[#reply + 1] = number
end
for _, name in ipairs(names) do reply[#reply + 1] = redis.call('HGET', packedKey, name) or '' end
return reply
