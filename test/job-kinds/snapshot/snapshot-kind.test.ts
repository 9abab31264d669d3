import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import { createPlatformClient } from '../../../src/platform/platform-client.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/**
 * The snapshot kind in a worker service in this process (fast to iterate on); the process-level
 * behaviour (kills, signals, several workers) is in the other files of this folder.
 */
describe('snapshot kind (in-process worker)', () => {
  let kit: WorkerTestKit;
  let connected: string[];

  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 40, seed: 3 });
    connected = kit.sim.clusters
      .filter((cluster) => cluster.connectionState === 'Connected')
      .map((cluster) => cluster.id);
  });
  afterAll(() => kit.close());

  it('resolves targets at fire time, skips unsupported types, fails unknown ids, triggers each workload once and records every outcome', async () => {
    const worker = await kit.startInProcessWorker();
    try {
      const gold = kit.sim.fixtures().slaDomains.find((sla) => sla.name === 'Gold');
      const runId = await kit.fire({
        id: 'nightly',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: {
          ids: ['no-such-workload'],
          types: ['VSPHERE_VM', 'MSSQL_DATABASE', 'LINUX_FILESET'],
          clusterIds: connected,
        },
        retention: { slaDomainName: 'Gold' },
        maxWait: '1h',
      });
      const run = await kit.waitForRun(runId);
      const items = await kit.items(runId);
      const stats = kit.sim.stats();

      const snapshotted = items.filter((item) => item.status === 'succeeded');
      const skipped = items.filter((item) => item.status === 'skipped');
      expect(snapshotted.length).toBeGreaterThan(5);
      expect(skipped.length).toBeGreaterThan(0);
      for (const item of skipped) {
        expect(item.targetType).toBe('LINUX_FILESET');
        expect(item.reason).toMatch(
          /^LINUX_FILESET: on-demand snapshots are supported only for vSphere VMs/,
        );
        expect(stats.snapshotTriggers[item.target ?? '']).toBeUndefined();
      }
      expect(items.find((item) => item.itemKey === 'no-such-workload')).toMatchObject({
        status: 'failed',
        errorCode: 'NOT_FOUND',
      });
      for (const item of snapshotted) {
        expect(['VSPHERE_VM', 'MSSQL_DATABASE']).toContain(item.targetType);
        expect(item.platformJobId).toMatch(/^(CREATE_VSPHERE_SNAPSHOT|MSSQL_DB_BACKUP)_/);
        expect(item.details?.['snapshotId']).toEqual(expect.any(String));
        expect(item.details?.['retentionSlaDomainId']).toBe(gold?.id);
        expect(stats.snapshotTriggers[item.target ?? '']).toBe(1);
      }
      // The unknown id fails the run; everything else is accounted for.
      expect(run.status).toBe('failed');
      expect(run.counts).toMatchObject({
        total: items.length,
        queued: 0,
        running: 0,
        succeeded: snapshotted.length,
        skipped: skipped.length,
        failed: 1,
      });
      // The retention SLA Domain reached the platform with the trigger.
      const first = snapshotted[0];
      expect(first?.details?.['jobIdFrom']).toBe('trigger');
      const client = await createPlatformClient({
        settings: kit.settings(),
        logger: silentLogger(),
      });
      try {
        const snapshots = await client.rest.workloads.snapshots(first?.target ?? '').toArray();
        expect(snapshots.find((snapshot) => snapshot.jobId === first?.platformJobId)).toMatchObject(
          { isOnDemand: true, slaDomainId: gold?.id },
        );
      } finally {
        await client.close();
      }
    } finally {
      await worker.stop();
    }
  });

  it('skips the workloads of a Disconnected cluster, with the reason, and never triggers them', async () => {
    const disconnected = kit.sim.clusters.find(
      (cluster) => cluster.connectionState === 'Disconnected',
    );
    const worker = await kit.startInProcessWorker();
    try {
      const runId = await kit.fire({
        id: 'disconnected',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'], clusterIds: [disconnected?.id ?? ''] },
        retention: { slaDomainName: 'Gold' },
        maxWait: '1h',
      });
      const run = await kit.waitForRun(runId);
      const items = await kit.items(runId);
      expect(items.length).toBeGreaterThan(0);
      const stats = kit.sim.stats();
      for (const item of items) {
        expect(item).toMatchObject({ status: 'skipped' });
        expect(item.reason).toBe(
          `cluster ${disconnected?.name ?? ''} (${disconnected?.id ?? ''}) is Disconnected: ` +
            'no snapshot can be taken until it reconnects',
        );
        expect(stats.snapshotTriggers[item.target ?? '']).toBeUndefined();
      }
      expect(run.status).toBe('succeeded');
    } finally {
      await worker.stop();
    }
  });

  it('a run that selects nothing finishes at once, and keepForever warns loudly', async () => {
    const worker = await kit.startInProcessWorker();
    try {
      const runId = await kit.fire({
        id: 'nothing',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { namePattern: 'no-workload-is-called-this-*' },
        keepForever: true,
      });
      const run = await kit.waitForRun(runId);
      expect(run.status).toBe('succeeded');
      expect(run.counts.total).toBe(0);
      expect(worker.logs.text()).toMatch(/KEEP FOREVER/);
    } finally {
      await worker.stop();
    }
  });

  it('a retention SLA Domain that does not exist fails the run at once with the fix', async () => {
    const worker = await kit.startInProcessWorker();
    try {
      const runId = await kit.fire({
        id: 'bad-retention',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        targets: { types: ['VSPHERE_VM'] },
        retention: { slaDomainName: 'Platinum' },
      });
      const run = await kit.waitForRun(runId);
      expect(run).toMatchObject({ status: 'failed', errorCode: 'RETENTION_NOT_FOUND' });
      expect(run.errorMessage).toMatch(/no SLA Domain is named "Platinum".*paw sla list/);
      expect(run.attempts).toBe(1);
    } finally {
      await worker.stop();
    }
  });
});
