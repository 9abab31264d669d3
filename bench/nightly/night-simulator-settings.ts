import { simulatorOptionsSchema, type SimulatorOptionsInput } from '../../src/simulator/options.js';
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
  readonly latencyMs: number;
  readonly concurrencyPerCluster: number;
  readonly durationSeconds: {
    readonly median: number;
    readonly sigma: number;
    readonly min: number;
  };
}

export function nightSettings(snapshots: number, timeScale: number): NightSettings {
  return {
    snapshots,
    seed: 1,
    // Six clusters: four Connected ones hold the VMs and databases (branch-robo-cl03 is
    // Disconnected and aws-cloud-cl04 holds only EC2 instances).
    clusters: 6,
    timeScale,
    requestsPerSecond: 50,
    burst: 50,
    latencyMs: 20,
    // 32 slots per cluster (the simulator's default) at a median of 60 platform seconds
    // (sigma 1: a mean of about 100): the four clusters end about 26 snapshots per second at
    // timeScale 20, about the 25 per second the rate limit allows a client that triggers each
    // job and reads it once. Neither limit hides the other: a client must trigger early enough
    // to keep every slot busy and read rarely enough to leave the requests for the triggers.
    concurrencyPerCluster: 32,
    // Long-tailed: sigma 1 puts the slowest of 10,000 at about 40 times the median.
    durationSeconds: { median: 60, sigma: 1, min: 10 },
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
    faults: { default: { latency: { fixedMs: settings.latencyMs } }, operations: {} },
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
 * Finds how many workloads to seed. The seeded inventory is a prefix of a longer one with the
 * same seed (workloads are drawn one after another), so the number of qualifying workloads
 * grows by at most one per workload: a binary search finds the smallest inventory with
 * exactly `snapshots` of them. Seeding runs in this process, with the simulator's own code.
 */
export function nightInventory(settings: NightSettings): NightInventory {
  const qualifying = (workloads: number) => {
    const state = new SimulatorState(
      simulatorOptionsSchema.parse(simulatorOptions(settings, workloads)),
    );
    return state.inventory.workloads.filter(
      (workload) =>
        (SUPPORTED_TYPES as readonly string[]).includes(workload.type) &&
        workload.cluster.connectionState === 'Connected',
    );
  };
  let low = settings.snapshots;
  let high = settings.snapshots * 2;
  while (qualifying(high).length < settings.snapshots) high *= 2;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (qualifying(middle).length >= settings.snapshots) high = middle;
    else low = middle + 1;
  }
  const chosen = qualifying(low);
  return {
    workloads: low,
    workloadIds: chosen.map((workload) => workload.id),
    clusterIds: [...new Set(chosen.map((workload) => workload.cluster.id))].sort(),
  };
}
