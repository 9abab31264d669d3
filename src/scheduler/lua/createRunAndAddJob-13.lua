--[[
  A fire's run and its job, in one step: creates the run's record unless it exists, and adds its
  BullMQ job when the run was created, or exists and is still queued (a scheduler that died
  between the two steps before). One script and one round trip instead of two: what a fire
  costs Redis is most of what the scheduler costs (`bench queue`).

  Input:
    KEYS[1..9] BullMQ's addStandardJob's, in its order (src/queue/run-job-addition.ts builds them)
    KEYS[10] the run:              `<base>:run:<runId>`
    KEYS[11] every run:            `<base>:runs`
    KEYS[12] the definition's runs: `<base>:runs:def:<definitionId>`
    KEYS[13] its active runs:      `<base>:active:<definitionId>`

    ARGV[1..3] BullMQ's addStandardJob's
    ARGV[4] run id
    ARGV[5] fire time (epoch ms)
    ARGV[6] '1' when the run is created active (queued), else '0'
    ARGV[7] status
    ARGV[8...] the run's fields, field and value after each other

  Output:
    {1 created | 0 existed, the run's status, the job id ('' when none was added; BullMQ's
    negative code when it refused the job)}
]]
--- @include "outcomes/lua/includes/createRun.lua"
--- @fragment bullmqAddStandardJob

local fields = {}
for i = 8, #ARGV do fields[#fields + 1] = ARGV[i] end
local run = pawCreateRun(KEYS[10], KEYS[11], KEYS[12], KEYS[13], ARGV[4], ARGV[5], ARGV[6], ARGV[7], fields)
if run[1] == 0 and run[2] ~= 'queued' then return {run[1], run[2], ''} end
return {run[1], run[2], tostring(bullmqAddStandardJob())}
