import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PawProcess } from '../../testkit/paw-process.js';
import { exitWithin } from '../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';
import { PLATFORM_LATENCIES } from '../../testkit/platform-latency.js';

/**
 * Workers killed with SIGKILL at the most dangerous steps of a snapshot run (named crash points:
 * the process kills itself exactly there) and at random moments, on a platform that answers in
 * milliseconds and on one that answers at the real platform's latency (a second or so a call,
 * so that many triggers are on their way when a worker dies): every workload is snapshotted
 * exactly once (the simulator's `snapshotTriggers`) and every outcome is recorded.
 */
describe.each(PLATFORM_LATENCIES)(
  'a worker killed while triggering and polling, the platform answering at $name speed',
  (latency) => {
    let kit: WorkerTestKit;
    let targets: Record<string, unknown>;

    beforeAll(async () => {
      // Jobs of a few seconds each, so items are in every phase when a worker dies.
      kit = await startWorkerTestKit(
        {
          workloads: 60,
          seed: 11,
          timeScale: 60,
          jobs: { failureRate: 0, cancelRate: 0 },
          // As the real platform's activity: no event names its job, so a retry can only find a
          // lost trigger's snapshot through the workload's activity.
          eventsWithoutJobIds: true,
        },
        `kills-${latency.name}`,
        undefined,
        latency,
      );
      const connected = kit.sim.clusters
        .filter((cluster) => cluster.connectionState === 'Connected')
        .map((cluster) => cluster.id);
      targets = { types: ['VSPHERE_VM', 'MSSQL_DATABASE'], clusterIds: connected };
    });
    afterAll(() => kit.close());

    /**
     * Every item succeeded with a job id, and the platform saw exactly one trigger for each (once
     * `stop` has stopped every worker, and the platform has acted on what they sent).
     */
    async function expectEachWorkloadOnce(runId: string, stop: () => Promise<void>): Promise<void> {
      const run = await kit.waitForRun(runId, 240_000);
      await stop();
      await kit.platformSettled();
      const items = await kit.items(runId);
      const triggers = kit.sim.stats().snapshotTriggers;
      expect(items.length).toBeGreaterThan(10);
      for (const item of items) {
        expect(item, `item ${item.itemKey}`).toMatchObject({ status: 'succeeded' });
        // A job id from the trigger's answer, or the activity a retry found it through (never
        // another run's finished snapshot, which names neither).
        expect(item.platformJobId ?? '', `item ${JSON.stringify(item)}`).toMatch(
          /^(CREATE_VSPHERE_SNAPSHOT_|MSSQL_DB_BACKUP_|activity@)/,
        );
        expect(triggers[item.target ?? ''], `triggers of ${item.itemKey}`).toBe(1);
      }
      expect(Object.keys(triggers).sort()).toEqual(items.map((item) => item.target).sort());
      expect(run).toMatchObject({ status: 'succeeded' });
      expect(run.counts.succeeded).toBe(items.length);
    }

    it('at each crash point in turn, a restarted worker finishes the run: each workload triggered once', async () => {
      const runId = await kit.fire({
        id: 'crash-points',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets,
        retention: { slaDomainName: 'Gold' },
        maxWait: '1h',
      });
      // Each worker dies at its crash point; the next one (armed with the next point) takes over
      // the dead one's jobs once their locks expire.
      const points = [
        'snapshot.after-items-recorded',
        'snapshot.after-fan-out',
        'snapshot.after-intent@2',
        'snapshot.after-trigger@2',
        'snapshot.after-record@2',
        'snapshot.after-poll@4',
      ];
      const env = { PAW_LOG_LEVEL: 'info' };
      const died: string[] = [];
      for (const point of points) {
        const worker: PawProcess = kit.paw(['worker'], { ...env, PAW_CRASH_AT: point });
        const exit = await exitWithin(worker.exited, `the worker armed at ${point}`, 60_000);
        expect(exit, `worker armed at ${point}:\n${worker.stderr.slice(-2000)}`).toEqual({
          code: null,
          signal: 'SIGKILL',
        });
        died.push(point);
      }
      expect(died).toEqual(points);
      const survivor = kit.paw(['worker'], env);
      await expectEachWorkloadOnce(runId, async () => {
        expect(await exitWithin(survivor.stop('SIGTERM'), 'the last worker')).toEqual({
          code: 0,
          signal: null,
        });
      });
      // At least one retry had to find its trigger through the workload's events.
      const items = await kit.items(runId);
      expect(items.some((item) => item.details?.['jobIdFrom'] === 'events')).toBe(true);
    }, 400_000);

    it('random SIGKILLs of two workers during a run: each workload triggered once, every outcome recorded', async () => {
      await kit.control('DELETE', '/_sim/stats');
      const runId = await kit.fire({
        id: 'random-kills',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets,
        retention: { slaDomainName: 'Silver' },
        maxWait: '1h',
      });
      const env = { PAW_LOG_LEVEL: 'info' };
      const workers = [kit.paw(['worker'], env), kit.paw(['worker'], env)];
      let kills = 0;
      const random = seeded(42);
      const ended = async () => (await kit.outcomes.runs.get(runId))?.status === 'succeeded';
      while (kills < 6 && !(await ended())) {
        await new Promise((resolve) => setTimeout(resolve, 1_500 + random() * 1_500));
        const index = random() < 0.5 ? 0 : 1;
        await workers[index]?.stop('SIGKILL');
        kills++;
        workers[index] = kit.paw(['worker'], env);
      }
      expect(kills).toBeGreaterThan(0);
      await expectEachWorkloadOnce(runId, async () => {
        await Promise.all(workers.map((worker) => exitWithin(worker.stop('SIGTERM'), 'a worker')));
      });
    }, 400_000);
  },
);

/** A small deterministic random stream, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}
