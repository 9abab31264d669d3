import { luaScript } from '../../redis/lua-file.js';

/**
 * The shared state of the platform request gate, one Redis hash (`<prefix>:platform-gate`):
 * `tokens`, `last` (the bucket), `pausedUntil`, `limitedAt`, `reducedRate`, `consecutive`,
 * `lastPenaltyMs` (the slow-down after a 429) and `epoch` (how many 429 waves so far).
 *
 * Time is Redis's own clock (`TIME`), so processes on machines whose clocks disagree still share
 * one bucket. Both scripts mirror TokenBucketGate (src/platform/rate-limit/token-bucket-gate.ts): a
 * token bucket whose rate is halved by a 429 and climbs back linearly over `recoveryMs`. Only the
 * short reservation in `acquireScript` is theirs alone: within one process callers wait in line
 * and never race for a token. Each script's file says what it takes and answers.
 */
export const acquireScript = luaScript('platform/rate-limit/lua/acquireTokens-1.lua');

/** Records a 429: every process pauses, then runs slower for a while. */
export const rateLimitedScript = luaScript('platform/rate-limit/lua/recordRateLimited-1.lua');
