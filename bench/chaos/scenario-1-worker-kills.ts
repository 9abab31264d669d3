import { loadavg } from 'node:os';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { SeededRandom } from './support/seeded-random.js';
import { SnapshotNight, describeEndings } from './support/snapshot-night.js';

/**
 * Scenario 1: a night of snapshots while worker processes are killed with SIGKILL every few
 * seconds and started again. Two `paw worker` processes share the night; every 2–5 s one of them
 * (chosen at random, seeded) is killed mid-work and a fresh one takes its place. What must hold:
 * no workload triggered twice (the simulator's own count), none missed, every outcome recorded.
 */
export const scenario: ChaosScenario = {
  id: 1,
  slug: 'worker-kills',
  title:
    'a night of snapshots while workers are SIGKILLed every few seconds: none twice, none missed',
  run,
};

const FORMS = {
  // About 200 snapshots, three kills 1.5–3 s apart: well under a minute.
  quick: {
    workloads: 340,
    timeScale: 60,
    maxKills: 3,
    killEveryMs: [1_500, 3_000],
    timeoutMs: 120_000,
  },
  // About 2,000 snapshots, a kill every 2–5 s for as long as the night lasts.
  full: {
    workloads: 3_200,
    timeScale: 120,
    maxKills: 1_000,
    killEveryMs: [2_000, 5_000],
    timeoutMs: 900_000,
  },
} as const;

async function run(context: ChaosContext): Promise<ChaosVerdict> {
  const form = context.quick ? FORMS.quick : FORMS.full;
  const night = await SnapshotNight.start({
    label: 'worker-kills',
    workloads: form.workloads,
    simulator: { timeScale: form.timeScale },
    progress: (line) => context.progress(line),
  });
  let passed = false;
  try {
    const started = Date.now();
    const workers = await night.startWorkers(2);
    await night.fire();
    const random = new SeededRandom(1);
    let kills = 0;
    const [minGap, maxGap] = form.killEveryMs;
    const gap = (): number => minGap + random.next() * (maxGap - minGap);
    let nextKillAt = gap();
    const ended = await night.waitForEnd(form.timeoutMs, async (elapsed) => {
      if (kills >= form.maxKills || elapsed < nextKillAt) return;
      const index = random.next() < 0.5 ? 0 : 1;
      const victim = workers[index];
      if (victim === undefined) return;
      await victim.stop('SIGKILL');
      kills++;
      context.progress(`SIGKILL ${kills}: worker pid ${victim.pid}; starting another`);
      workers[index] = night.spawnWorker();
      nextKillAt = elapsed + gap();
    });
    const seconds = (Date.now() - started) / 1000;
    const judgement = await night.judge();
    const problems = [
      ...(ended ? [] : ['the runs did not end in time']),
      // A night that ended before the first kill has shown nothing.
      ...(kills === 0 ? ['no worker was killed before the night ended'] : []),
      ...judgement.problems,
    ];
    passed = problems.length === 0;
    const summary =
      `${describeEndings(judgement)}, ${kills} SIGKILLs, ${judgement.twice} triggered twice, ` +
      `${judgement.missed} missed, in ${seconds.toFixed(0)} s; load ${loadavg()[0]?.toFixed(2)}`;
    return {
      passed,
      verdict: passed ? summary : `${summary}: ${problems.join('; ')}`,
      figures: {
        snapshots: judgement.expected,
        items: judgement.items,
        succeeded: judgement.succeeded,
        failed: judgement.failed,
        kills,
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
