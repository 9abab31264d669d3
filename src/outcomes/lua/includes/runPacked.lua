--[[
  Whether a run's items are packed (`packed`) or being packed (`packing`)
  (src/outcomes/run-packer.ts): a script that writes items refuses then with the error reply
  `PAW_RUN_PACKED`, and its caller unpacks the run and writes again (ItemStore.writing).

  pawPackedFlags(packed, packing): the answer from the two fields, for a script that reads them
    with the run's other fields (one HMGET per item write, not two).
  pawRunPacked(runKey): the answer, read from the run's hash.
]]
local function pawPackedFlags(packed, packing)
  return packed ~= false or packing ~= false
end

local function pawRunPacked(runKey)
  local flags = redis.call('HMGET', runKey, 'packed', 'packing')
  return pawPackedFlags(flags[1], flags[2])
end
