--[[
  Creates a run unless one with its id exists (a run recorded skipped or missed, or one whose job
  is added by another step: src/scheduler/lua/createRunAndAddJob-13.lua).

  Input:
    KEYS[1] the run:              `<base>:run:<runId>`
    KEYS[2] every run:            `<base>:runs`
    KEYS[3] the definition's runs: `<base>:runs:def:<definitionId>`
    KEYS[4] its active runs:      `<base>:active:<definitionId>`

    ARGV[1] run id
    ARGV[2] fire time (epoch ms)
    ARGV[3] '1' when the run is created active (queued), else '0'
    ARGV[4] status
    ARGV[5...] the run's fields, field and value after each other

  Output:
    {1, status} when created; {0, the existing run's status} when it existed
]]
--- @include "outcomes/lua/includes/createRun.lua"

local fields = {}
for i = 5, #ARGV do fields[#fields + 1] = ARGV[i] end
return pawCreateRun(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], fields)
