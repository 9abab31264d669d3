import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitWithin } from '../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/**
 * The last item of a run ends, and its worker dies right after recording it: the run must still
 * end. (When the run's finish was a second write after the item's, a worker killed between the
 * two left the run running forever: a retry of the item found it ended and stopped.)
 */
describe('a worker killed as the last item of a run ends', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    kit = await startWorkerTestKit(
      { workloads: 20, seed: 5, timeScale: 120, jobs: { failureRate: 0, cancelRate: 0 } },
      'run-end',
    );
  });
  afterAll(() => kit.close());

  it('the run is finished all the same, by the same step', async () => {
    const workload = kit.sim.fixtures().workloads.samples.vsphereVm;
    const runId = await kit.fire({
      id: 'one-vm',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { ids: [workload] },
      retention: { slaDomainName: 'Gold' },
      maxWait: '1h',
    });
    const dying = kit.paw(['worker'], { PAW_CRASH_AT: 'snapshot.after-end' });
    expect(
      await exitWithin(dying.exited, 'the worker armed at snapshot.after-end', 60_000),
    ).toEqual({ code: null, signal: 'SIGKILL' });
    const survivor = kit.paw(['worker']);
    try {
      const run = await kit.waitForRun(runId, 60_000);
      expect(run).toMatchObject({ status: 'succeeded', counts: { total: 1, succeeded: 1 } });
    } finally {
      await survivor.stop('SIGTERM');
    }
  });
});
