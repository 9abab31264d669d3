import { loadavg } from 'node:os';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { redisOutage, STEADY_ITEMS, waitForEndedFraction } from './support/redis-outage.js';
import { SnapshotNight, describeEndings } from './support/snapshot-night.js';

/**
 * Scenario 4: Redis unreachable for 30 s in the middle of a night of snapshots (the server is
 * stopped, so connections are refused, then started again on the same port with its data). The
 * worker processes keep running through it. What must hold: they resume within 10 s of Redis's
 * return (measured: from Redis accepting connections to the first item that ends after it; the
 * time to 50 items is reported too), and nothing is lost.
 */
export const scenario: ChaosScenario = {
  id: 4,
  slug: 'redis-outage',
  title:
    'Redis unreachable for 30 s mid-night: workers resume within 10 s of its return, nothing lost',
  run,
};

/** The issue's promise: workers resume within this long of Redis's return. */
const RESUME_LIMIT_SECONDS = 10;

const FORMS = {
  // About 200 snapshots and a shorter outage (8 s), so that CI's quick suite stays short.
  quick: { workloads: 340, awayMs: 8_000, timeoutMs: 150_000 },
  // About 2,000 snapshots and the issue's 30 s.
  full: { workloads: 3_200, awayMs: 30_000, timeoutMs: 900_000 },
} as const;

async function run(context: ChaosContext): Promise<ChaosVerdict> {
  const form = context.quick ? FORMS.quick : FORMS.full;
  const night = await SnapshotNight.start({
    label: 'redis-outage',
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
    await waitForEndedFraction(night, 0.25, form.timeoutMs);
    const outage = await redisOutage(night, {
      signal: 'SIGTERM',
      awayMs: form.awayMs,
      resumeTimeoutMs: 120_000,
      say: (line) => context.progress(line),
    });
    const ended = await night.waitForEnd(form.timeoutMs);
    const seconds = (Date.now() - started) / 1000;
    const judgement = await night.judge();
    const died = workers.filter((worker) => !worker.running).length;
    const resume = outage.resumeSeconds;
    const steady = outage.steadySeconds;
    const problems = [
      ...(ended ? [] : ['the runs did not end in time']),
      ...(died > 0 ? [`${died} of ${workers.length} worker processes exited`] : []),
      ...(resume === undefined
        ? ['paw made no progress after Redis came back']
        : resume > RESUME_LIMIT_SECONDS
          ? [
              `paw resumed ${resume.toFixed(1)} s after Redis came back (limit ${RESUME_LIMIT_SECONDS} s)`,
            ]
          : []),
      ...judgement.problems,
    ];
    passed = problems.length === 0;
    const outageNote = context.quick ? ` (quick form: ${form.awayMs / 1000} s, not 30 s)` : '';
    const summary =
      `Redis unreachable for ${outage.downSeconds.toFixed(1)} s${outageNote}; workers resumed ` +
      `${resume === undefined ? 'never' : `${resume.toFixed(1)} s`} after its return (limit ${RESUME_LIMIT_SECONDS} s; ` +
      `${STEADY_ITEMS} items ended after ${steady === undefined ? 'never' : `${steady.toFixed(1)} s`}); ` +
      `${describeEndings(judgement)}, ` +
      `${judgement.twice} triggered twice, ${judgement.missed} lost, ${workers.length - died}/${workers.length} workers still running, ` +
      `in ${seconds.toFixed(0)} s; load ${loadavg()[0]?.toFixed(2)}`;
    return {
      passed,
      verdict: passed ? summary : `${summary}: ${problems.join('; ')}`,
      figures: {
        snapshots: judgement.expected,
        ended: judgement.ended,
        awaySeconds: Number(outage.downSeconds.toFixed(1)),
        resumeSeconds: resume === undefined ? 'never' : Number(resume.toFixed(1)),
        steadySeconds: steady === undefined ? 'never' : Number(steady.toFixed(1)),
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
