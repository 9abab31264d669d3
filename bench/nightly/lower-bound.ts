/**
 * The lower bound the platform itself imposes on a night: no client, however clever, can end
 * every snapshot of the night sooner. Two limits, and the bound is the larger:
 *
 * 1. **Requests.** Every snapshot needs at least two platform requests: its trigger and one
 *    status read after it ended. The gateway's token bucket admits at most `burst` requests at
 *    once and `rate` per second after that, so 2·N requests take at least
 *    `(2·N − burst) / rate` seconds.
 *
 * 2. **Snapshots.** Replay the night's own jobs (the durations, clusters and outcomes the
 *    simulator drew for them, `GET /_sim/jobs`) in the order they were triggered, but with the
 *    k-th trigger (k = 1, 2, …) at the earliest moment the bucket could have admitted it:
 *    `max(0, (k − burst) / rate)` seconds after the start, as if the client sent nothing but
 *    triggers. Each cluster runs `concurrencyPerCluster` jobs at once, exactly as the
 *    simulator does: a job starts at the later of its trigger + `queuedMs` and the earliest
 *    free slot of its cluster, and holds that slot for its run time. The bound is when the
 *    last replayed job ends.
 *
 * 3. **Latency.** The platform acts on a request only once it has arrived: each trigger above
 *    starts its job at least the shortest latency later, and the last request of (1) is answered
 *    no sooner than that after it passed the bucket. Both limits move by the shortest latency.
 *    (The status read that sees a job's end adds nothing: a client could have sent it a latency
 *    before the end.)
 *
 * Why (2) bounds the real night: the simulator assigns slots in trigger order with the same
 * rule, and that rule is monotone: triggering no job later never makes any job start or end
 * later. Each real trigger happened no sooner than its replayed one (it too had to pass the
 * bucket, behind at least k − 1 other requests), so every real job ended no sooner than its
 * replay. It ignores the requests' latency and the status reads, so it is not tight: a real
 * client must still read each status after the job ended.
 */
export interface ReplayedJob {
  readonly clusterId: string;
  /** Time the job holds its slot, real milliseconds (`endAt − startAt` in the simulator). */
  readonly runMs: number;
}

export interface LowerBoundInput {
  /** The night's jobs in trigger order. */
  readonly jobs: readonly ReplayedJob[];
  readonly requestsPerSecond: number;
  readonly burst: number;
  readonly concurrencyPerCluster: number;
  /** Shortest time a job spends QUEUED, real milliseconds. */
  readonly queuedMs: number;
  /** The shortest latency of a request, real milliseconds (0: none). */
  readonly minLatencyMs?: number;
}

export interface LowerBound {
  readonly seconds: number;
  /** Limit 1: 2·N requests through the bucket. */
  readonly requestsSeconds: number;
  /** Limit 2: the slot schedule with every trigger at the earliest moment. */
  readonly snapshotsSeconds: number;
}

export function lowerBound(input: LowerBoundInput): LowerBound {
  const { jobs, requestsPerSecond: rate, burst } = input;
  const latencyMs = input.minLatencyMs ?? 0;
  const requestsSeconds = Math.max(0, (2 * jobs.length - burst) / rate) + latencyMs / 1000;

  // Slot end times per cluster; a sorted array is enough, only the smallest is taken.
  const slots = new Map<string, number[]>();
  let lastEndMs = 0;
  jobs.forEach((job, index) => {
    const triggerMs = (Math.max(0, index + 1 - burst) / rate) * 1000 + latencyMs;
    let free = slots.get(job.clusterId);
    if (free === undefined) {
      free = new Array<number>(input.concurrencyPerCluster).fill(0);
      slots.set(job.clusterId, free);
    }
    const earliestFree = free.shift() ?? 0;
    const endMs = Math.max(triggerMs + input.queuedMs, earliestFree) + job.runMs;
    insertSorted(free, endMs);
    lastEndMs = Math.max(lastEndMs, endMs);
  });
  const snapshotsSeconds = lastEndMs / 1000;
  return {
    seconds: Math.max(requestsSeconds, snapshotsSeconds),
    requestsSeconds,
    snapshotsSeconds,
  };
}

/** The formula, for the report. */
export const LOWER_BOUND_FORMULA =
  'lower bound = max( (2·N − burst) / rate + L , end of the last job when the night’s own jobs ' +
  '(simulator-drawn durations, clusters, outcomes; trigger order kept) are triggered at the ' +
  'earliest the bucket allows and arrive the shortest latency L later, the k-th at ' +
  'max(0, (k − burst)/rate) s + L, into each cluster’s concurrencyPerCluster slots with the ' +
  'simulator’s rule start = max(trigger + queued, earliest free slot) )';

function insertSorted(values: number[], value: number): void {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] ?? 0) < value) low = middle + 1;
    else high = middle;
  }
  values.splice(low, 0, value);
}
