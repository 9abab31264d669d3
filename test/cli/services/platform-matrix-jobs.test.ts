import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { authenticates, createTestAccount } from '../../testkit/service-accounts.js';
import {
  startWorkerTestKit,
  type InProcessWorker,
  type WorkerTestKit,
} from '../../testkit/worker-kit.js';

/**
 * The three job kinds through both interfaces (`platform.api`), against platforms that spell
 * things as this project's model does and as the GraphQL schema does. The code above the client
 * is the same in all four: only the settings and the simulator's words change.
 */
const PLATFORMS = [
  { api: 'rest', vocabulary: 'spec' },
  { api: 'rest', vocabulary: 'graphql' },
  { api: 'graphql', vocabulary: 'spec' },
  { api: 'graphql', vocabulary: 'graphql' },
] as const;

/** The words a platform of each vocabulary uses for a VM and a fileset. */
const WORDS = {
  spec: { vm: 'VSPHERE_VM', database: 'MSSQL_DATABASE', fileset: 'LINUX_FILESET' },
  graphql: { vm: 'VmwareVirtualMachine', database: 'Mssql', fileset: 'LinuxFileset' },
} as const;

describe.each(PLATFORMS)(
  'the jobs through $api, on a platform of the $vocabulary vocabulary',
  (platform) => {
    let kit: WorkerTestKit;
    let worker: InProcessWorker;
    let admin: PlatformClient;
    let connected: string[];

    beforeAll(async () => {
      kit = await startWorkerTestKit(
        { workloads: 30, seed: 5, vocabulary: platform.vocabulary, eventsWithoutJobIds: true },
        `matrix-${platform.api}-${platform.vocabulary}`,
      );
      connected = kit.sim.clusters
        .filter((cluster) => cluster.connectionState === 'Connected')
        .map((cluster) => cluster.id);
      worker = await kit.startInProcessWorker({ platform: { api: platform.api } });
      admin = await createPlatformClient({ settings: kit.settings(), logger: silentLogger() });
    });
    afterAll(async () => {
      await admin?.close();
      await kit?.close();
    });

    it('snapshots every VM and database once, skips the filesets with the reason, and records the outcomes', async () => {
      const runId = await kit.fire({
        id: 'nightly',
        kind: 'snapshot',
        schedule: { cron: '0 1 * * *' },
        // The definition's words need not be the platform's: types match by kind.
        targets: {
          types: ['VSPHERE_VM', 'MSSQL_DATABASE', 'LINUX_FILESET'],
          clusterIds: connected,
        },
        retention: { slaDomainName: 'Gold' },
        maxWait: '1h',
      });
      const run = await kit.waitForRun(runId);
      const items = await kit.items(runId);
      const triggers = kit.sim.stats().snapshotTriggers;
      const words = WORDS[platform.api === 'graphql' ? 'graphql' : platform.vocabulary];

      const succeeded = items.filter((item) => item.status === 'succeeded');
      const skipped = items.filter((item) => item.status === 'skipped');
      expect(run.status, JSON.stringify(run.counts)).toBe('succeeded');
      expect(succeeded.length).toBeGreaterThan(5);
      expect(skipped.length).toBeGreaterThan(0);
      expect(succeeded.length + skipped.length).toBe(items.length);
      for (const item of succeeded) {
        expect([words.vm, words.database]).toContain(item.targetType);
        expect(triggers[item.target ?? ''], item.itemKey).toBe(1);
        expect(item.details).toMatchObject({ trackedVia: 'job', jobIdFrom: 'trigger' });
        expect(item.details?.['snapshotId'] ?? item.details?.['platformStatus']).toBeDefined();
        if (platform.api === 'graphql') {
          // The status queries need the cluster and the kind: kept with the job.
          expect(item.details?.['clusterId']).toEqual(expect.any(String));
          expect(item.details?.['onDemandSnapshot']).toMatch(/^(vsphere-vm|mssql-database)$/);
        }
      }
      for (const item of skipped) {
        expect(item.targetType).toBe(words.fileset);
        expect(item.reason).toMatch(/on-demand snapshots are supported only for vSphere VMs/);
        expect(triggers[item.target ?? '']).toBeUndefined();
      }
      // Nothing paw did not select was triggered.
      expect(Object.keys(triggers).sort()).toEqual(succeeded.map((item) => item.target).sort());
      // And the triggers went through the interface the settings chose.
      const restTriggers = kit.sim.stats().byOperation['takeSnapshot'] ?? 0;
      expect(restTriggers).toBe(platform.api === 'rest' ? succeeded.length : 0);
      if (platform.api === 'graphql') {
        // The platform's audit shows who took each snapshot and why (GraphQL's userNote).
        const jobs = (await kit.control('GET', '/_sim/jobs')) as {
          jobs: { workloadId: string; userNote?: string }[];
        };
        const notes = jobs.jobs
          .filter((job) => triggers[job.workloadId] !== undefined)
          .map((job) => job.userNote);
        expect(notes).toHaveLength(succeeded.length);
        expect(new Set(notes)).toEqual(new Set([`taken by paw: run ${runId}`]));
      }
    });

    it('pauses the SLA Domain for the window, resumes it at the end, and leaves a hand pause alone', async () => {
      const domain = await admin.rest.slaDomains.create({
        name: `matrix-window-${Math.random().toString(36).slice(2, 8)}`,
        objectTypes: ['VSPHERE_VM'],
        frequency: { unit: 'DAILY', interval: 1 },
        retention: { unit: 'DAYS', duration: 7 },
      });
      const clusters = (domain.clusters ?? [])
        .map((cluster) => cluster.clusterId)
        .filter((id) => connected.includes(id));
      const [handPaused = '', other = ''] = clusters;
      // An administrator pauses it by hand, with a note (the simulator records who and why).
      // (control fails the test on an answer other than 2xx)
      await kit.control('POST', `/_sim/sla-domains/${domain.id}/pause`, {
        clusterIds: [handPaused],
        pausedBy: 'alice@example.com',
        note: 'storage migration',
      });

      const runId = await kit.fire({
        id: 'window',
        kind: 'sla-window',
        schedule: { cron: '0 22 * * 6', duration: '2s' },
        slaDomains: { ids: [domain.id], clusterIds: [handPaused, other] },
      });
      const run = await kit.waitForRun(runId);
      expect(run.status).toBe('succeeded');
      const state = Object.fromEntries(
        ((await admin.rest.slaDomains.get(domain.id)).clusters ?? []).map((cluster) => [
          cluster.clusterId,
          cluster.pauseStatus,
        ]),
      );
      expect(state[handPaused]).toBe('PAUSED');
      expect(state[other]).toBe('NOT_PAUSED');
      expect(await kit.outcomes.items.get(runId, `${domain.id}/${other}/pause`)).toMatchObject({
        status: 'succeeded',
        reason: 'paused',
      });
      expect(await kit.outcomes.items.get(runId, `${domain.id}/${other}/resume`)).toMatchObject({
        status: 'succeeded',
        reason: 'resumed',
      });
      const leftAlone = await kit.outcomes.items.get(runId, `${domain.id}/${handPaused}/pause`);
      expect(leftAlone).toMatchObject({ status: 'skipped' });
      if (platform.api === 'graphql') {
        // Who paused it, and why, is shown where paw leaves the pause alone (pausedSlaInfo).
        expect(leftAlone?.reason).toMatch(
          /^already paused by someone else \(alice@example\.com since .+: "storage migration"\): left alone/,
        );
      }
    });

    it('rotates a service account secret into its sink, which then authenticates', async () => {
      const account = await createTestAccount(
        admin,
        kit.sim,
        kit.dir,
        'matrix-app',
        'Read Only Admin',
      );
      const sink = join(kit.dir, `sink-${platform.api}-${platform.vocabulary}.json`);
      // The platform reports quorum-authorization policies the rotation suspended.
      await kit.control('PUT', '/_sim/suspended-tpr-policies', {
        policyIds: ['tpr-policy-1', 'tpr-policy-2'],
      });
      const runId = await kit.fire({
        id: 'rotate',
        kind: 'rotate-secret',
        schedule: { cron: '0 3 1 * *' },
        serviceAccount: { clientId: account.clientId },
        sink: { file: sink },
      });
      expect((await kit.waitForRun(runId)).status).toBe('succeeded');
      const [rotation] = await kit.items(runId);
      expect(rotation?.details?.['suspendedTprPolicyIds']).toBe('tpr-policy-1, tpr-policy-2');
      expect(rotation?.reason).toMatch(
        /suspended 2 quorum-authorization \(TPR\) policies \(tpr-policy-1, tpr-policy-2\)/,
      );
      expect(worker.logs.text()).toMatch(/the rotation suspended quorum-authorization policies/);
      await kit.control('PUT', '/_sim/suspended-tpr-policies', { policyIds: [] });
      expect(await authenticates(kit.sim, sink)).toBe(true);
      expect(await authenticates(kit.sim, account.file)).toBe(false); // the old secret is dead
      expect(worker.logs.text()).not.toMatch(/client_secret"\s*:\s*"[^*]/);
    });
  },
);
