import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitWithin } from '../../../testkit/exit-within.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../../testkit/worker-kit.js';

/**
 * A reconcile that outlasts its item's lease, as on a platform that answers in seconds: the item
 * comes due again in its lane while its step still runs, and when the step ends in "trigger
 * again", the lane must not also take the item up as due (a second step of the same item beside
 * the new trigger). Before the lane held each item in one state, it did: the second step,
 * reconciling from the record it had read, found nothing yet (the new trigger still on its way)
 * and triggered again: two snapshots of one workload in one run.
 */
describe('a reconcile slower than the lease', () => {
  let kit: WorkerTestKit;

  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 12, seed: 21, timeScale: 600 }, 'slow-reconcile');
  });
  afterAll(() => kit?.close());

  it('triggers the workload once: the item is in one step at a time', async () => {
    const vm = kit.sim.fixtures().workloads.samples.vsphereVm ?? '';
    const runId = await kit.fire({
      id: 'slow-reconcile',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { ids: [vm] },
      retention: { slaDomainName: 'Gold' },
      maxWait: '1h',
    });
    // The first worker dies with the item's intent on record and nothing sent.
    const dying = kit.paw(['worker'], { PAW_CRASH_AT: 'snapshot.after-intent' });
    expect(await exitWithin(dying.exited, 'the worker armed after the intent')).toEqual({
      code: null,
      signal: 'SIGKILL',
    });
    expect(kit.sim.stats().snapshotTriggers[vm]).toBeUndefined();

    // The reconcile's lookups (events, then snapshots) take 2.5 s each: 5 s, longer than the
    // item's 2 s lease. The trigger takes 8 s to land: longer than a second reconcile's lookups.
    kit.sim.setFaults({
      operations: {
        listEvents: { latency: { fixedMs: 2_500 } },
        listWorkloadSnapshots: { latency: { fixedMs: 2_500 } },
        takeSnapshot: { latency: { fixedMs: 8_000 } },
      },
    });
    const survivor = await kit.startInProcessWorker({
      platform: { timeouts: { headersMs: 12_000 } },
    });
    const run = await kit.waitForRun(runId, 110_000);
    const [item] = await kit.items(runId);
    // A second trigger would still be on its way (8 s) when the first one's end ends the run:
    // with the worker stopped, every request it sent has reached the simulator, which counts a
    // request when it arrives.
    await survivor.stop();
    expect(kit.sim.stats().byOperation['takeSnapshot'], `triggers of ${JSON.stringify(item)}`).toBe(
      1,
    );
    expect(kit.sim.stats().snapshotTriggers[vm]).toBe(1);
    expect(item?.status).toBe('succeeded');
    expect(item?.platformJobId).toMatch(/^CREATE_VSPHERE_SNAPSHOT_/);
    // Two intents: the dead worker's (never sent), then the one the lookup handed on.
    expect(item?.details?.['triggersSent']).toBe(2);
    expect(run.status).toBe('succeeded');
    // The lookup found nothing, and the item was triggered again once: no step of it was stale.
    const messages = survivor.logs.records().map((record) => String(record['msg']));
    expect(messages.some((message) => message.includes('triggering again'))).toBe(true);
    expect(messages.filter((message) => message.includes('another step took'))).toEqual([]);
    kit.sim.setFaults({ operations: {} });
  }, 150_000);
});
