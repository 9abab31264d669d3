import { loadavg } from 'node:os';
import type { FaultsInput } from '../../src/simulator/fault-rules.js';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { SnapshotNight } from './support/snapshot-night.js';

/**
 * Scenario 2: a night of snapshots against a platform that fails 10% of requests with a 5xx,
 * resets 2% of connections, never answers 1%, and now and then answers a burst of 429s (the
 * simulator's faults, docs/simulator.md "Faults", on every operation including the token
 * endpoint). What must hold: every snapshot ends, succeeded or recorded failed with its reason;
 * no workload triggered twice.
 */
export const scenario: ChaosScenario = {
  id: 2,
  slug: 'platform-faults',
  title:
    'a night of snapshots against 10% 5xx, 2% resets, 1% hangs and bursts of 429: every snapshot ends or says why',
  run,
};

const FORMS = {
  // About 200 snapshots and three bursts: each 429 pauses every worker for seconds (by design),
  // so more bursts would mostly make the quick form longer.
  quick: { workloads: 340, burstEveryMs: 8_000, maxBursts: 3, timeoutMs: 150_000 },
  // About 2,000 snapshots, a burst every 10 s for as long as the night lasts.
  full: { workloads: 3_200, burstEveryMs: 10_000, maxBursts: 1_000, timeoutMs: 900_000 },
} as const;

/** The steady faults, on every operation that has no rule of its own. */
const BASE_FAULTS: FaultsInput = {
  default: { errorRate: 0.1, resetRate: 0.02, hangRate: 0.01 },
};

/**
 * A burst: the next requests of each operation answer 429 (at most this many), for a second
 * and a half, then the steady faults again. Bursts come every few seconds, not back to back: paw's
 * answer to a 429 is to pause every worker (up to 8 s), and a platform that answers nothing but
 * 429s would show only that.
 */
const BURST_SIZE = 25;
const FIRST_BURST_MS = 2_000;
const BURST_MS = 1_500;

/** The steady faults, with a burst of 429s on the calls a snapshot night makes most. */
function burstFaults(): FaultsInput {
  const burst = { tooManyRequestsRate: 1, times: BURST_SIZE };
  return {
    ...BASE_FAULTS,
    operations: { takeSnapshot: burst, getSnapshotJobStatus: burst, listEvents: burst },
  };
}

async function run(context: ChaosContext): Promise<ChaosVerdict> {
  const form = context.quick ? FORMS.quick : FORMS.full;
  const night = await SnapshotNight.start({
    label: 'platform-faults',
    workloads: form.workloads,
    simulator: { timeScale: 60, faults: BASE_FAULTS },
    progress: (line) => context.progress(line),
  });
  let passed = false;
  try {
    const started = Date.now();
    await night.startWorkers(2);
    await night.fire();
    let bursts = 0;
    let burstOnSince: number | undefined;
    const ended = await night.waitForEnd(form.timeoutMs, async (elapsed) => {
      if (burstOnSince !== undefined && elapsed - burstOnSince >= BURST_MS) {
        await night.sim.setFaults(BASE_FAULTS);
        burstOnSince = undefined;
      } else if (
        burstOnSince === undefined &&
        bursts < form.maxBursts &&
        elapsed >= FIRST_BURST_MS + bursts * form.burstEveryMs
      ) {
        await night.sim.setFaults(burstFaults());
        burstOnSince = elapsed;
        bursts++;
      }
    });
    const seconds = (Date.now() - started) / 1000;
    const stats = await night.sim.stats();
    const judgement = await night.judge({ allowUntriggeredFailures: true });
    const injected = stats.faultsInjected;
    const count = (kind: string): number => injected[kind] ?? 0;
    const problems = [
      ...(ended ? [] : ['the runs did not end in time']),
      ...(count('tooManyRequests') === 0 ? ['no 429 burst reached paw'] : []),
      ...judgement.problems,
    ];
    passed = problems.length === 0;
    const reasons = Object.entries(judgement.failureCodes)
      .map(([code, n]) => `${n} ${code}`)
      .join(', ');
    const summary =
      `${judgement.ended}/${judgement.expected} snapshots ended: ${judgement.succeeded} succeeded, ` +
      `${judgement.failed} failed with their reason${reasons === '' ? '' : ` (${reasons})`}, ` +
      `${judgement.otherEnded} canceled/other; faults injected: ${count('error')} 5xx, ` +
      `${count('reset')} resets, ${count('hang')} hangs, ${count('tooManyRequests')} 429s in ${bursts} bursts; ` +
      `${judgement.twice} triggered twice, ${judgement.missed} missed, in ${seconds.toFixed(0)} s; ` +
      `load ${loadavg()[0]?.toFixed(2)}`;
    return {
      passed,
      verdict: passed ? summary : `${summary}: ${problems.join('; ')}`,
      figures: {
        snapshots: judgement.expected,
        succeeded: judgement.succeeded,
        failed: judgement.failed,
        failedWithoutReason: judgement.failedWithoutReason,
        errors5xx: count('error'),
        resets: count('reset'),
        hangs: count('hang'),
        tooManyRequests: count('tooManyRequests'),
        bursts,
        triggeredTwice: judgement.twice,
        missed: judgement.missed,
        seconds: Math.round(seconds),
        loadAverage: loadavg()[0] ?? 0,
      },
    };
  } finally {
    await night.close(!passed);
  }
}
