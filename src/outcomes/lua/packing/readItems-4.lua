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
    packed: {1, then for each item the number of the chunk that would hold it (0 for none) among
    those that follow, then those chunks}: a chunk holds the items from its name (the first
    item key, in byte order) to the next chunk's
]]
local runKey, itemsKey, packedKey, indexKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if not redis.call('HGET', runKey, 'packed') then
  local values = redis.call('HMGET', itemsKey, unpack(ARGV))
  local reply = {0}
  for i = 1, #ARGV do reply[i + 1] = values[i] or '' end
  return reply
end
local reply, names, numbers = {1}, {}, {}
for i = 1, #ARGV do
  local name = redis.call('ZREVRANGEBYLEX', indexKey, '[' .. ARGV[i], '-', 'LIMIT', 0, 1)[1]
  if name then
    if not numbers[name] then
      names[#names + 1] = name
      numbers[name] = #names
    end
    reply[#reply + 1] = numbers[name]
  else
    reply[#reply + 1] = 0
  end
end
for _, name in ipairs(names) do reply[#reply + 1] = redis.call('HGET', packedKey, name) or '' end
return reply
