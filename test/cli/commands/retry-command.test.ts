import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/** `paw retry <runId>` (real process, real Redis, the simulator, an in-process worker). */
describe('paw retry', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    // A fifth of the snapshot jobs fail, so the first run has items to retry.
    kit = await startWorkerTestKit({ workloads: 40, seed: 3, jobs: { failureRate: 0.2 } }, 'retry');
  });
  afterAll(() => kit.close());

  it('runs again, as a new linked run, only the workloads whose items did not succeed', async () => {
    // Every VM (those on the disconnected cluster are skipped, and a retry leaves them).
    const definition = {
      id: 'nightly',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { types: ['VSPHERE_VM'] },
      retention: { slaDomainName: 'Gold' },
    };
    await kit.writeJobs(`${JSON.stringify(definition)}\n`);
    const worker = await kit.startInProcessWorker();
    try {
      const first = await kit.fire(definition);
      await kit.waitForRun(first);
      const items = await kit.items(first);
      const failed = items.filter((item) => item.status === 'failed').map((item) => item.target);
      expect(failed.length).toBeGreaterThan(0);
      expect(items.length).toBeGreaterThan(failed.length);

      const retry = kit.paw(
        ['retry', first, '--json', '--reason', 'cluster back', '--by', 'dana'],
        { PAW_LOG_LEVEL: 'warn' },
      );
      expect((await retry.exited).code, retry.stderr).toBe(0);
      const result = JSON.parse(retry.stdout) as {
        runId: string;
        workloads: number;
        outcome: string;
      };
      expect(result.workloads).toBe(failed.length);
      expect(result.outcome).toBe('started');

      // Idempotent: the same retry again reports the first one and starts nothing.
      const again = kit.paw(['retry', first, '--json'], { PAW_LOG_LEVEL: 'warn' });
      expect((await again.exited).code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ outcome: 'exists', runId: result.runId });
      const [latest, earlier] = await kit.redis.xrevrange(
        `${kit.prefix}:ops:actions`,
        '+',
        '-',
        'COUNT',
        2,
      );
      expect(earlier?.[1].join(' ')).toMatch(
        /^at \S+ user dana via cli action retry run target \S+ outcome done detail started .* reason cluster back$/,
      );
      expect(latest?.[1].join(' ')).toMatch(/outcome no change detail already retried as /);
      const second = await kit.waitForRun(result.runId);
      expect(second.reason).toMatch(
        new RegExp(`^retry of ${first.replace(/[.]/g, '\\.')}: ${failed.length} workload`),
      );
      expect(second.reason).toMatch(/; by dana: cluster back$/);
      const retried = (await kit.items(result.runId)).map((item) => item.target).sort();
      expect(retried).toEqual([...failed].sort());

      const unknown = kit.paw(['retry', 'nightly@20200101T010000Z']);
      expect((await unknown.exited).code).toBe(2);
      expect(unknown.stderr).toMatch(/no run has the id nightly@20200101T010000Z/);
    } finally {
      await worker.stop();
    }
  });
});
