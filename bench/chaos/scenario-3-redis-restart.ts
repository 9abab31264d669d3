import { loadavg } from 'node:os';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { redisOutage, waitForEndedFraction, type OutageReport } from './support/redis-outage.js';
import { SnapshotNight, describeEndings } from './support/snapshot-night.js';

/**
 * Scenario 3: Redis, with its append-only file on, restarted in the middle of a night of
 * snapshots: a clean shutdown, as a restart of the service does (the full form then also kills
 * it with SIGKILL later in the night), and back on the same port and data directory at once. The worker processes are not restarted: they must find Redis again.
 * What must hold: no job lost (every workload's item ends, each triggered exactly once), and
 * every worker process still running.
 */
export const scenario: ChaosScenario = {
  id: 3,
  slug: 'redis-restart',
  title: 'Redis (AOF on) restarted mid-night: no job lost, workers carry on',
  run,
};

const FORMS = {
  // About 200 snapshots, one clean restart at a third of the night.
  quick: {
    workloads: 340,
    restarts: [{ at: 0.3, signal: 'SIGTERM' }],
    timeoutMs: 150_000,
  },
  // About 2,000 snapshots: a clean restart at a quarter of the night, and a crash (SIGKILL: the
  // AOF is synced every second, so up to a second of writes may be lost) at three fifths.
  full: {
    workloads: 3_200,
    restarts: [
      { at: 0.25, signal: 'SIGTERM' },
      { at: 0.6, signal: 'SIGKILL' },
    ],
    timeoutMs: 900_000,
  },
} as const;

async function run(context: ChaosContext): Promise<ChaosVerdict> {
  const form = context.quick ? FORMS.quick : FORMS.full;
  const night = await SnapshotNight.start({
    label: 'redis-restart',
    workloads: form.workloads,
    simulator: { timeScale: 60 },
    appendOnly: true,
    progress: (line) => context.progress(line),
  });
  let passed = false;
  try {
    const started = Date.now();
    const workers = await night.startWorkers(2);
    await night.fire();
    const outages: OutageReport[] = [];
    for (const restart of form.restarts) {
      await waitForEndedFraction(night, restart.at, form.timeoutMs);
      outages.push(
        await redisOutage(night, {
          signal: restart.signal,
          awayMs: 0,
          resumeTimeoutMs: 60_000,
          say: (line) => context.progress(line),
        }),
      );
    }
    const ended = await night.waitForEnd(form.timeoutMs);
    const seconds = (Date.now() - started) / 1000;
    const judgement = await night.judge();
    const died = workers.filter((worker) => !worker.running).length;
    const resumes = outages.map((outage) => outage.resumeSeconds);
    const problems = [
      ...(ended ? [] : ['the runs did not end in time']),
      ...(died > 0 ? [`${died} of ${workers.length} worker processes exited`] : []),
      ...(resumes.some((value) => value === undefined)
        ? ['paw did not resume after a restart']
        : []),
      ...judgement.problems,
    ];
    passed = problems.length === 0;
    const shown = (value: number | undefined): string =>
      value === undefined ? 'never' : `${value.toFixed(1)} s`;
    const summary =
      `${outages.length} Redis restart(s) (AOF on; ${form.restarts.map((r) => (r.signal === 'SIGTERM' ? 'clean' : 'SIGKILL')).join(', then ')}; ` +
      `down ${outages.map((o) => `${o.downSeconds.toFixed(1)} s`).join(', ')}; ` +
      `first progress after ${resumes.map(shown).join(', ')}); ${describeEndings(judgement)}, ` +
      `${judgement.twice} triggered twice, ${judgement.missed} lost, ${workers.length - died}/${workers.length} workers still running, ` +
      `in ${seconds.toFixed(0)} s; load ${loadavg()[0]?.toFixed(2)}`;
    return {
      passed,
      verdict: passed ? summary : `${summary}: ${problems.join('; ')}`,
      figures: {
        snapshots: judgement.expected,
        ended: judgement.ended,
        restarts: outages.length,
        downSeconds: outages.map((o) => o.downSeconds.toFixed(1)).join(' '),
        resumeSeconds: resumes.map((value) => value?.toFixed(1) ?? 'never').join(' '),
        triggeredTwice: judgement.twice,
        lost: judgement.missed,
        workersExited: died,
        seconds: Math.round(seconds),
        loadAverage: loadavg()[0] ?? 0,
      },
    };
  } finally {
    await night.close(!passed);
  }
}
