--[[
  Finishes a run (see pawFinishRun in includes/finishRun.lua). Safe to repeat.

  Input:
    KEYS[1] the run: `<base>:run:<runId>`

    ARGV[1] run id
    ARGV[2] now (epoch ms)
    ARGV[3] the final status; '' derives it from the item counters
    ARGV[4] error code ('' for none)
    ARGV[5] error message ('' for none)
    ARGV[6] base (`<prefix>:outcomes`)
    ARGV[7] '' or the time of a worker's start deferred to this write

  Output:
    {final status, status before the call, ...the run's fields as they are now, flat};
    {'', ''} when there is no such run
]]
--- @include "outcomes/lua/includes/finishRun.lua"

return pawFinishRun(KEYS[1], ARGV[6], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[7])
