import { loadavg } from 'node:os';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { SeededRandom } from './support/seeded-random.js';
import { SnapshotNight, describeEndings, type NightJudgement } from './support/snapshot-night.js';

/**
 * Scenario 9: a night on a platform that answers every request after 1 to 3 s (the real
 * platform's latency, where the simulator's own is milliseconds), through REST and then through
 * GraphQL, while worker processes are killed with SIGKILL as their triggers are on their way: at
 * that latency a lane has dozens of triggers in flight, and a killed worker leaves intents whose
 * answers never came, some of which the platform acts on after the worker is gone. What must
 * hold: one trigger per workload (the simulator's own count, once it has acted on every request
 * it received), every item ended, and every record consistent (its job id is how it is followed,
 * and a job the platform ran for that workload).
 */
export const scenario: ChaosScenario = {
  id: 9,
  slug: 'slow-platform-kills',
  title:
    'a night at 1-3 s a request, through REST and GraphQL, workers SIGKILLed while triggers are in flight: one trigger each, every item ended, every record consistent',
  run,
};

const FORMS = {
  // About 120 snapshots a night, three kills: a few minutes for both nights.
  quick: { workloads: 200, timeScale: 60, kills: 3, timeoutMs: 300_000 },
  // About 1,200 a night, six kills.
  full: { workloads: 2_000, timeScale: 60, kills: 6, timeoutMs: 1_200_000 },
} as const;

/** Every request waits 1 to 3 s before the simulator acts on it. */
const LATENCY = { minMs: 1_000, maxMs: 3_000 };

async function run(context: ChaosContext): Promise<ChaosVerdict> {
  const form = context.quick ? FORMS.quick : FORMS.full;
  const nights: { api: 'rest' | 'graphql'; judgement: NightJudgement; kills: number }[] = [];
  const problems: string[] = [];
  const started = Date.now();
  for (const api of ['rest', 'graphql'] as const) {
    const result = await slowNight(context, api, form);
    nights.push(result);
    problems.push(...result.problems.map((problem) => `${api}: ${problem}`));
  }
  const seconds = (Date.now() - started) / 1000;
  const passed = problems.length === 0;
  const summary = nights
    .map(
      ({ api, judgement, kills }) =>
        `${api}: ${describeEndings(judgement)}, ${kills} SIGKILLs, ${judgement.twice} triggered twice, ` +
        `${judgement.missed} missed, ${judgement.inconsistent} inconsistent`,
    )
    .join('; ');
  const verdict = `${summary}; in ${seconds.toFixed(0)} s; load ${loadavg()[0]?.toFixed(2)}`;
  return {
    passed,
    verdict: passed ? verdict : `${verdict}: ${problems.join('; ')}`,
    figures: Object.fromEntries(
      nights.flatMap(({ api, judgement, kills }) => [
        [`${api}Snapshots`, judgement.expected],
        [`${api}Kills`, kills],
        [`${api}TriggeredTwice`, judgement.twice],
        [`${api}Missed`, judgement.missed],
        [`${api}Inconsistent`, judgement.inconsistent],
      ]),
    ),
  };
}

async function slowNight(
  context: ChaosContext,
  api: 'rest' | 'graphql',
  form: (typeof FORMS)[keyof typeof FORMS],
): Promise<{ judgement: NightJudgement; kills: number; problems: string[] } & { api: typeof api }> {
  const night = await SnapshotNight.start({
    label: `slow-${api}`,
    workloads: form.workloads,
    api,
    // An answer may take 3 s; paw gives it 10 (a hung request still ends).
    headersMs: 10_000,
    simulator: {
      timeScale: form.timeScale,
      faults: { default: { latency: LATENCY }, operations: {} },
    },
    progress: (line) => context.progress(`${api}: ${line}`),
  });
  let passed = false;
  try {
    const workers = await night.startWorkers(3);
    await night.fire();
    const random = new SeededRandom(9);
    let kills = 0;
    let lastKillAt = 0;
    const ended = await night.waitForEnd(form.timeoutMs, async (elapsed) => {
      if (kills >= form.kills || elapsed - lastKillAt < 2_000) return;
      // Only while triggers are on their way: items running, few of them ended yet.
      const progress = await night.progress();
      if (progress === undefined || progress.items === 0) return;
      if (progress.ended >= progress.items / 2) return;
      const index = Math.floor(random.next() * workers.length);
      const victim = workers[index];
      if (victim === undefined) return;
      await victim.stop('SIGKILL');
      kills++;
      lastKillAt = elapsed;
      context.progress(
        `${api}: SIGKILL ${kills}: worker pid ${victim.pid} with ${progress.items - progress.ended} items open; starting another`,
      );
      workers[index] = night.spawnWorker();
    });
    const judgement = await night.judge();
    const problems = [
      ...(ended ? [] : ['the runs did not end in time']),
      ...(kills === 0 ? ['no worker was killed while triggers were in flight'] : []),
      ...judgement.problems,
    ];
    passed = problems.length === 0;
    return { api, judgement, kills, problems };
  } finally {
    await night.close(!passed);
  }
}
