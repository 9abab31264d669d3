--[[
  pawRunPacked(runKey): whether the run's items are packed (`packed`) or being packed (`packing`)
  (src/outcomes/run-packer.ts): a script that writes items refuses then with the error reply
  `PAW_RUN_PACKED`, and its caller unpacks the run and writes again (ItemStore.writing).
]]
local function pawRunPacked(runKey)
  local flags = redis.call('HMGET', runKey, 'packed', 'packing')
  return flags[1] ~= false or flags[2] ~= false
end
