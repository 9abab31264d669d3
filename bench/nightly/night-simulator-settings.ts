import { simulatorOptionsSchema, type SimulatorOptionsInput } from '../../src/simulator/options.js';
import type { SimWorkload } from '../../src/simulator/records.js';
import { SimulatorState } from '../../src/simulator/simulator-state.js';

/** The workload types the platform snapshots on demand (the rest answer 400). */
export const SUPPORTED_TYPES = ['VSPHERE_VM', 'MSSQL_DATABASE'] as const;

/** What the night's simulator is started with, and why (printed with the results). */
export interface NightSettings {
  readonly snapshots: number;
  readonly seed: number;
  readonly clusters: number;
  readonly timeScale: number;
  readonly requestsPerSecond: number;
  readonly burst: number;
  /** Every request's latency, drawn uniformly from this range (real milliseconds). */
  readonly latency: NightLatency;
  readonly concurrencyPerCluster: number;
  readonly durationSeconds: {
    readonly median: number;
    readonly sigma: number;
    readonly min: number;
  };
}

/** A request's latency on the night's platform: uniform between the two (equal: fixed). */
export interface NightLatency {
  readonly minMs: number;
  readonly maxMs: number;
}

/** The latency of the night people compared paw with so far: the simulator's 20 ms. */
export const FAST_LATENCY: NightLatency = { minMs: 20, maxMs: 20 };

/** The platform's rate in the night people run today, and the slots per cluster that match it. */
export const BASE_REQUESTS_PER_SECOND = 50;
const BASE_CONCURRENCY_PER_CLUSTER = 32;

/**
 * The night's settings for `snapshots` snapshots at `timeScale`, with the platform's rate limit
 * at `requestsPerSecond` (50 unless asked: the headroom night of issue 12 is 500). The burst and
 * each cluster's slots scale with the rate, so that at every rate the two limits stay balanced
 * as the comment below explains for 50/s: a client 10 times faster meets a platform 10 times
 * larger, not only a looser rate limit behind the same slots.
 */
export function nightSettings(
  snapshots: number,
  timeScale: number,
  requestsPerSecond = BASE_REQUESTS_PER_SECOND,
  latency: NightLatency = FAST_LATENCY,
): NightSettings {
  const scale = requestsPerSecond / BASE_REQUESTS_PER_SECOND;
  return {
    snapshots,
    seed: 1,
    // Six clusters: four Connected ones hold the VMs and databases (branch-robo-cl03 is
    // Disconnected and aws-cloud-cl04 holds only EC2 instances).
    clusters: 6,
    timeScale,
    requestsPerSecond,
    burst: requestsPerSecond,
    latency,
    // At 50/s: 32 slots per cluster (the simulator's default) at a median of 60 platform
    // seconds (sigma 1: a mean of about 100): the four clusters end about 26 snapshots per
    // second at timeScale 20, about the 25 per second the rate limit allows a client that
    // triggers each job and reads it once. Neither limit hides the other: a client must trigger
    // early enough to keep every slot busy and read rarely enough to leave the requests for the
    // triggers. At another rate the slots scale with it (320 at 500/s), which keeps that ratio.
    concurrencyPerCluster: Math.max(1, Math.round(BASE_CONCURRENCY_PER_CLUSTER * scale)),
    // Long-tailed: sigma 1 puts the slowest of 10,000 at about 40 times the median.
    durationSeconds: { median: 60, sigma: 1, min: 10 },
  };
}

/**
 * paw's settings for the night (environment variables). paw knows nothing of the time scale: its
 * time settings are scaled like the platform's, so that it polls the night as it would poll a
 * real one (5 s .. 5 min of platform time). Its request gate is the platform's rate, as an
 * operator would set it.
 */
export function pawNightEnvironment(settings: NightSettings): Record<string, string> {
  return {
    PAW_PLATFORM_RPS: String(settings.requestsPerSecond),
    PAW_PLATFORM_PAGE_SIZE: '1000',
    PAW_SNAPSHOT_POLL_MIN_MS: String(Math.round(5_000 / settings.timeScale)),
    PAW_SNAPSHOT_POLL_MAX_MS: String(Math.round(300_000 / settings.timeScale)),
  };
}

/** The simulator's options (`paw sim --config`), for a given number of workloads. */
export function simulatorOptions(
  settings: NightSettings,
  workloads: number,
): SimulatorOptionsInput {
  return {
    port: 0,
    seed: settings.seed,
    workloads,
    clusters: settings.clusters,
    timeScale: settings.timeScale,
    // A token lives 12 platform hours: at a high time scale, long enough for the longest run.
    tokenLifetimeSeconds: 86_400,
    rateLimit: { requestsPerSecond: settings.requestsPerSecond, burst: settings.burst },
    jobs: {
      concurrencyPerCluster: settings.concurrencyPerCluster,
      durationSeconds: settings.durationSeconds,
    },
    faults: {
      default: {
        latency:
          settings.latency.minMs === settings.latency.maxMs
            ? { fixedMs: settings.latency.minMs }
            : settings.latency,
      },
      operations: {},
    },
  };
}

/** The night's targets: exactly `snapshots` workloads of supported types on Connected clusters. */
export interface NightInventory {
  /** How many workloads the simulator seeds so that exactly `snapshots` of them qualify. */
  readonly workloads: number;
  readonly workloadIds: readonly string[];
  /** The Connected clusters that hold them. */
  readonly clusterIds: readonly string[];
}

/**
 * Finds how many workloads to seed: the smallest inventory with exactly `snapshots` qualifying
 * workloads. Seeding runs in this process, with the simulator's own code.
 *
 * The seeded inventory is a prefix of a longer one with the same seed (workloads are drawn one
 * after another), so the count q(m) of qualifying workloads among m seeded ones never falls
 * and grows by at most one per workload. That makes each seeding narrow the answer W by more
 * than a bisection would: q(m) ≥ N puts W at most m − (q(m) − N), q(m) < N puts it at least
 * m + (N − q(m)). Until a seeding reaches N, the next guess interpolates with the share of
 * qualifying workloads seen so far; then bisection finishes. At N = 100,000 that is five
 * seedings (5 s of CPU on this machine) where the bisection alone took about eighteen, each of
 * 100,000 to 200,000 workloads.
 */
export function nightInventory(settings: NightSettings): NightInventory {
  const search = findSmallestCount(settings.snapshots, (workloads) =>
    qualifyingWorkloads(settings, workloads),
  );
  const chosen = search.found;
  return {
    workloads: search.count,
    workloadIds: chosen.map((workload) => workload.id),
    clusterIds: [...new Set(chosen.map((workload) => workload.cluster.id))].sort(),
  };
}

/** The night's targets in an inventory of `workloads`: VMs and databases on Connected clusters. */
export function qualifyingWorkloads(settings: NightSettings, workloads: number): SimWorkload[] {
  const state = new SimulatorState(
    simulatorOptionsSchema.parse(simulatorOptions(settings, workloads)),
  );
  return state.inventory.workloads.filter(
    (workload) =>
      (SUPPORTED_TYPES as readonly string[]).includes(workload.type) &&
      workload.cluster.connectionState === 'Connected',
  );
}

/**
 * The smallest m ≥ `target` with `count(m).length ≥ target`, for a `count` that never falls and
 * grows by at most one as m grows by one; also what `count` gave there (exactly `target` items)
 * and how many times it was called.
 */
export function findSmallestCount<T>(
  target: number,
  count: (m: number) => readonly T[],
): { count: number; found: readonly T[]; evaluations: number } {
  let low = target; // W ≥ low, as q(m) ≤ m
  let high = Infinity; // W ≤ high
  let atHigh: readonly T[] | undefined; // what count(high) gave, when it was asked
  let evaluations = 0;
  let guess = target;
  while (low < high) {
    const m = Math.min(Math.max(guess, low), high - 1);
    const found = count(m);
    evaluations++;
    const q = found.length;
    if (q >= target) {
      high = m - (q - target);
      atHigh = high === m ? found : undefined;
    } else {
      low = m + (target - q);
    }
    // Below every count asked so far, the next guess is where W is expected at the share of
    // qualifying items seen (target − q of them ahead), at most twice as far; once there is an
    // upper end, bisection (with the two rules above, each step more than halves the bracket).
    const share = Math.max(q, 1) / m;
    guess = Number.isFinite(high)
      ? Math.floor((low + high) / 2)
      : Math.min(Math.round(m + (target - q) / share), 2 * Math.max(m, low));
  }
  if (atHigh !== undefined) return { count: low, found: atHigh, evaluations };
  return { count: low, found: count(low), evaluations: evaluations + 1 };
}
