import type { ExportFigures, LatencyFigures } from './operations-figures.js';
import type { SimulatorStalls } from './simulator-stalls.js';

/** One contender's figures, as the table and `--json` show them. */
export interface ContenderResult {
  readonly name: 'paw' | 'sequential' | 'concurrent';
  readonly description: string;
  /** Snapshots the contender was given (the night's N). */
  readonly snapshots: number;
  /** Set when the contender ran a sample of the night and the makespan is extrapolated. */
  readonly extrapolatedFrom?: number;
  /** Makespan of the whole night, seconds (extrapolated linearly from the sample, if any). */
  readonly makespanSeconds: number;
  /** Makespan actually measured (of the sample, if any). */
  readonly measuredMakespanSeconds: number;
  /** Platform requests (every operation, the token included) per snapshot triggered. */
  readonly requestsPerSnapshot: number;
  /** Platform requests by operationId (of the sample, if any). */
  readonly requestsByOperation: Record<string, number>;
  /** 429s from the platform's rate limit during the (sampled) run. */
  readonly rateLimited: number;
  /** The platform's final status of each snapshot job triggered. */
  readonly statuses: Record<string, number>;
  /** CPU time of the client processes after start-up, per snapshot, milliseconds. */
  readonly cpuMsPerSnapshot: number;
  /**
   * paw: its processes' CPU while idle, ms per second (all of them, measured for a few seconds
   * between start-up and the fire). A night's CPU is about this × makespan + a cost per snapshot.
   */
  readonly idleCpuMsPerSecond?: number;
  /** The largest peak resident set of any one client process, MB. */
  readonly peakRssMb: number;
  /** paw: each process's peak resident set (VmHWM), MB, by its name (`paw start`, ...). */
  readonly peakRssMbByProcess?: Record<string, number>;
  readonly processes: number;
  /** paw: Redis's `used_memory` after the run, MB. */
  readonly redisMb?: number;
  /** paw: redis-server's CPU time during the run per snapshot, ms (not in `cpuMsPerSnapshot`). */
  readonly redisCpuMsPerSnapshot?: number;
  /** paw: its processes' read and write system calls (sockets included) per snapshot. */
  readonly systemCallsPerSnapshot?: { readonly read: number; readonly write: number };
  /**
   * paw: Redis commands per snapshot during the run (`INFO commandstats`, which counts the
   * commands a Lua script runs as well as its EVALSHA), and Lua scripts (EVALSHA + EVAL) of them.
   */
  readonly redisCommandsPerSnapshot?: number;
  readonly redisScriptsPerSnapshot?: number;
  /** paw: the Redis commands by name, per snapshot, largest first. */
  readonly redisCommandsByName?: Record<string, number>;
  /** paw: how long the simulator went without answering during the night (a probe's timings). */
  readonly simulatorStalls?: SimulatorStalls;
  /** paw: makespan ÷ the platform's lower bound. */
  readonly lowerBoundRatio?: number;
  /**
   * paw: when its first and last snapshot were triggered, seconds after the run was fired (the
   * first is the fan-out's cost: listing the workloads, recording the items, adding the jobs).
   */
  readonly triggerSeconds?: {
    readonly first: number;
    readonly last: number;
    /** Requests that reached the platform per second between the first and the last trigger. */
    readonly requestsPerSecond: number | undefined;
  };
  /** paw: Redis's `used_memory_peak` after the run (since redis-server started), MB. */
  readonly redisPeakMb?: number;
  /** paw: `paw outcomes --run <run> --export jsonl --out FILE` after the night. */
  readonly export?: ExportFigures;
  /** paw: the dashboard's JSON API (`paw start`'s ops server) after the night. */
  readonly dashboard?: readonly LatencyFigures[];
}

/** A contender's process died or misbehaved: the bench exits 1. */
export class ContenderCrashedError extends Error {
  override readonly name = 'ContenderCrashedError';
}
