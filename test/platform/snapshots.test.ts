import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidRequestError,
  UnavailableError,
  UnsupportedWorkloadTypeError,
} from '../../src/platform/http/platform-errors.js';
import { waitForSnapshotJob } from '../../src/platform/jobs/wait-for-snapshot-job.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import type { SimulatorFixtures } from '../../src/simulator/fixtures.js';
import { startPlatformTestKit, type PlatformTestKit } from './platform-test-kit.js';

interface Stats {
  byOperation: Record<string, number>;
}

describe('on-demand snapshots and their jobs', () => {
  let kit: PlatformTestKit;
  let client: PlatformClient;
  let fixtures: SimulatorFixtures;

  beforeAll(async () => {
    // Platform time runs 2000x faster: a job of a few platform minutes ends in well under a second.
    kit = await startPlatformTestKit({
      workloads: 80,
      seed: 3,
      timeScale: 2000,
      jobs: { failureRate: 0, cancelRate: 0 },
    });
    client = await kit.client();
    fixtures = kit.sim.fixtures();
  });
  afterAll(() => kit.close());

  const sample = (name: keyof SimulatorFixtures['workloads']['samples']): string => {
    const id = fixtures.workloads.samples[name];
    if (id === undefined) throw new Error(`the inventory has no ${name} workload`);
    return id;
  };

  const triggers = async (): Promise<number> => {
    const stats = (await kit.control('GET', '/_sim/stats')) as Stats;
    return stats.byOperation['takeSnapshot'] ?? 0;
  };

  it('triggers a snapshot, follows its job-status link and waits until it succeeds', async () => {
    const workload = await client.rest.workloads.get(sample('vsphereVm'));
    const [sla] = await client.rest.slaDomains.list().toArray(1);
    const trigger = await client.rest.workloads.takeSnapshot(workload, { slaDomainId: sla?.id });
    expect(trigger.job.id).toMatch(/^CREATE_VSPHERE_SNAPSHOT_/);
    expect(trigger.tracking).toMatchObject({ via: 'job', jobId: trigger.job.id });
    const statusUrl = trigger.tracking.via === 'job' ? trigger.tracking.statusUrl : undefined;
    expect(new URL(statusUrl ?? '').origin).toBe(new URL(kit.sim.baseUrl).origin);
    const phases = new Set<string>();
    const result = await waitForSnapshotJob({
      read: (signal) => client.rest.workloads.readSnapshotJob(trigger.tracking, signal),
      initial: trigger.job,
      nextDelay: () => 20,
      onUpdate: ({ phase }) => phases.add(phase),
    });
    expect(result).toMatchObject({ phase: 'succeeded', timedOut: false });
    expect(result.job.progress).toBe(100);
    expect(phases.has('in_progress')).toBe(true);
    const snapshots = await client.rest.workloads.snapshots(workload.id).toArray(5);
    expect(snapshots.map((snapshot) => snapshot.jobId)).toContain(trigger.job.id);
  });

  it.each([
    { shape: 'jobStatusUrl', relative: false },
    { shape: 'jobStatusLink', relative: true },
    { shape: 'link', relative: false },
    { shape: 'href', relative: true },
    { shape: 'links', rel: 'jobStatus', relative: false },
    { shape: 'links', rel: 'status', relative: true },
    { shape: 'links', rel: 'self', relative: false },
  ])('finds the job-status link in metadata shaped %j', async (shape) => {
    await kit.control('PUT', '/_sim/job-status-link', shape);
    const workload = await client.rest.workloads.get(sample('mssqlDatabase'));
    const trigger = await client.rest.workloads.takeSnapshot(workload);
    expect(trigger.tracking.via === 'job' && trigger.tracking.statusUrl).toMatch(/^http/);
    expect(trigger.job.id).toMatch(/^MSSQL_DB_BACKUP_/);
    const job = await client.rest.workloads.readSnapshotJob(trigger.tracking);
    expect(job.id).toBe(trigger.job.id);
    await kit.control('PUT', '/_sim/job-status-link', {});
  });

  it('refuses an unsupported workload type before any request', async () => {
    const workload = await client.rest.workloads.get(sample('unsupportedType'));
    const before = await triggers();
    const error = await client.rest.workloads.takeSnapshot(workload).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsupportedWorkloadTypeError);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toContain('supported only for vSphere VMs (VSPHERE_VM)');
    expect((error as UnsupportedWorkloadTypeError).status).toBeUndefined();
    expect(await triggers()).toBe(before);
  });

  it('reports the platform refusing an unsupported type too (a client with a stale type)', async () => {
    const workload = await client.rest.workloads.get(sample('unsupportedType'));
    const error = await client.rest.workloads
      .takeSnapshot({ ...workload, type: 'VSPHERE_VM', kind: 'VSPHERE_VM' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ status: 400, code: 'UNSUPPORTED_WORKLOAD_TYPE' });
  });

  it('reports a disconnected cluster as unavailable, without repeating the trigger', async () => {
    const workload = await client.rest.workloads.get(sample('onDisconnectedCluster'));
    const before = await triggers();
    const error = await client.rest.workloads.takeSnapshot(workload).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error).toMatchObject({ status: 503, code: 'CLUSTER_UNAVAILABLE' });
    // 503 CLUSTER_UNAVAILABLE provably did nothing, so the retry layer may repeat it: it does,
    // up to its attempts, and no job was created by any of them.
    expect((await triggers()) - before).toBe(3);
  });

  it('builds the job-status URL from the route table for a job known only by id', () => {
    const route = client.rest.client.routes.resolve('getSnapshotJobStatus', {
      workloadId: 'w-1',
      jobId: 'CREATE_VSPHERE_SNAPSHOT_w-1_r:::0',
    });
    expect(route.url.pathname).toBe(
      '/api/rest/workloads/w-1/snapshot-jobs/CREATE_VSPHERE_SNAPSHOT_w-1_r%3A%3A%3A0',
    );
  });

  it('follows a job known only by id through the route table', async () => {
    const workload = await client.rest.workloads.get(sample('vsphereVm'));
    const trigger = await client.rest.workloads.takeSnapshot(workload);
    const job = await client.rest.workloads.readSnapshotJob({
      via: 'job',
      workloadId: workload.id,
      jobId: trigger.job.id,
    });
    expect(job).toMatchObject({ id: trigger.job.id, workloadId: workload.id });
  });
});
