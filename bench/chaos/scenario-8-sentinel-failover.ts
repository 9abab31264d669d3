import { loadavg } from 'node:os';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { waitForEndedFraction } from './support/redis-outage.js';
import { SnapshotNight, describeEndings } from './support/snapshot-night.js';
import { eventually } from '../../test/testkit/eventually.js';

/**
 * Scenario 8: Redis behind Sentinel (a primary, its replica, three sentinels), and the primary
 * killed with SIGKILL in the middle of a night of snapshots. Sentinel promotes the replica; the
 * worker processes, given a redis+sentinel:// URL, must find the new primary by themselves.
 * What must hold: every workload's item ends, each triggered exactly once, and every worker
 * process still running.
 */
export const scenario: ChaosScenario = {
  id: 8,
  slug: 'sentinel-failover',
  title: 'Redis primary killed mid-night behind Sentinel: paw follows the promoted replica',
  run,
};

const FORMS = {
  quick: { workloads: 340, killAt: 0.3, timeoutMs: 150_000 },
  full: { workloads: 3_200, killAt: 0.4, timeoutMs: 900_000 },
} as const;

async function run(context: ChaosContext): Promise<ChaosVerdict> {
  const form = context.quick ? FORMS.quick : FORMS.full;
  const night = await SnapshotNight.start({
    label: 'sentinel-failover',
    workloads: form.workloads,
    simulator: { timeScale: 60 },
    sentinel: true,
    progress: (line) => context.progress(line),
  });
  let passed = false;
  try {
    const sentinel = night.sentinel;
    if (sentinel === undefined) throw new Error('the night has no Sentinel');
    const started = Date.now();
    const workers = await night.startWorkers(2);
    await night.fire();
    const before = await waitForEndedFraction(night, form.killAt, form.timeoutMs);
    await sentinel.primary.kill('SIGKILL');
    const killedAt = Date.now();
    context.progress(
      `primary (port ${sentinel.primary.port}) SIGKILLed at ${before.ended}/${before.items} items ended`,
    );
    const promoted = `127.0.0.1:${sentinel.replica.port}`;
    const promotedSeconds = await eventually(
      'Sentinel to promote the replica',
      async () =>
        (await sentinel.currentPrimary().catch(() => '')) === promoted &&
        (Date.now() - killedAt) / 1000,
      { timeoutMs: 60_000 - (Date.now() - killedAt), intervalMs: 100, otherwise: () => undefined },
    );
    context.progress(
      promotedSeconds === undefined
        ? 'Sentinel did not promote the replica within 60 s'
        : `Sentinel promoted the replica ${promotedSeconds.toFixed(1)} s after the kill`,
    );
    // paw's first progress on the new primary: an item ending after the promotion.
    const resumedSeconds =
      promotedSeconds === undefined
        ? undefined
        : await eventually(
            'paw to progress on the new primary',
            async () => {
              const progress = await night.progress().catch(() => undefined);
              return (
                progress !== undefined &&
                progress.ended > before.ended &&
                (Date.now() - killedAt) / 1000
              );
            },
            {
              timeoutMs: 120_000 - (Date.now() - killedAt),
              intervalMs: 100,
              otherwise: () => undefined,
            },
          );
    const ended = await night.waitForEnd(form.timeoutMs);
    const seconds = (Date.now() - started) / 1000;
    const judgement = await night.judge();
    const died = workers.filter((worker) => !worker.running).length;
    const problems = [
      ...(promotedSeconds === undefined ? ['Sentinel did not promote the replica'] : []),
      ...(resumedSeconds === undefined ? ['paw made no progress after the failover'] : []),
      ...(ended ? [] : ['the runs did not end in time']),
      ...(died > 0 ? [`${died} of ${workers.length} worker processes exited`] : []),
      ...judgement.problems,
    ];
    passed = problems.length === 0;
    const shown = (value: number | undefined): string =>
      value === undefined ? 'never' : `${value.toFixed(1)} s`;
    const summary =
      `primary SIGKILLed at ${Math.round(form.killAt * 100)}% of the night; replica promoted after ${shown(promotedSeconds)}, ` +
      `first progress ${shown(resumedSeconds)} after the kill; ${describeEndings(judgement)}, ` +
      `${judgement.twice} triggered twice, ${judgement.missed} lost, ${workers.length - died}/${workers.length} workers still running, ` +
      `in ${seconds.toFixed(0)} s; load ${loadavg()[0]?.toFixed(2)}`;
    return {
      passed,
      verdict: passed ? summary : `${summary}: ${problems.join('; ')}`,
      figures: {
        snapshots: judgement.expected,
        ended: judgement.ended,
        promotedSeconds: promotedSeconds ?? -1,
        resumedSeconds: resumedSeconds ?? -1,
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
