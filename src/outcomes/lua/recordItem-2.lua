--[[
  Creates or updates an item of a run (see pawRecordItem in includes/recordItem.lua): the one
  way an item is recorded. (A snapshot lane records many in one script with the same function:
  src/job-kinds/snapshot/lanes/lua/writeLane-16.lua.)

  Input:
    KEYS[1] the run:   `<base>:run:<runId>`
    KEYS[2] its items: `<base>:items:<runId>`

    ARGV[1] base (`<prefix>:outcomes`)
    ARGV[2] run id
    ARGV[3] now (epoch ms)
    ARGV[4] '' or the time of a worker's start of the run deferred to this write
    ARGV[5] item key
    ARGV[6] the update, as stored JSON (compact names; null clears a field)
    ARGV[7] the status the item must have for the update to happen ('' for any)
    ARGV[8] '1' to merge the update's details into the item's
    ARGV[9] '1' to finish the run when this update ends its last item still queued or running

  Output:
    pawRecordItem's reply
]]
--- @include "outcomes/lua/includes/recordItem.lua"

return pawRecordItem(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[5], ARGV[3], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[4])
