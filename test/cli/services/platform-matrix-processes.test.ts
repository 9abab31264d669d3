import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPaw } from '../../testkit/paw-process.js';
import { exitWithin } from '../../testkit/exit-within.js';
import { PLATFORM_LATENCIES } from '../../testkit/platform-latency.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/**
 * The command line and a worker killed with SIGKILL, through both interfaces, on platforms of
 * both vocabularies, answering in milliseconds and at the real platform's latency (a second or
 * so a call). The platform's events carry no job id (as the real platform's activity never
 * does), so a retry after a crash between trigger and record can only find its snapshot through
 * the workload's activity: it must, and trigger nothing twice.
 */
const PLATFORMS = [
  { api: 'rest', vocabulary: 'spec' },
  { api: 'rest', vocabulary: 'graphql' },
  { api: 'graphql', vocabulary: 'spec' },
  { api: 'graphql', vocabulary: 'graphql' },
] as const;

const MATRIX = PLATFORMS.flatMap((platform) =>
  PLATFORM_LATENCIES.map((latency) => ({ ...platform, latency, speed: latency.name })),
);

describe.each(MATRIX)(
  'paw through $api, on a platform of the $vocabulary vocabulary answering at $speed speed',
  (platform) => {
    let kit: WorkerTestKit;
    let vm: string;
    let gold: string;

    beforeAll(async () => {
      kit = await startWorkerTestKit(
        {
          workloads: 30,
          seed: 8,
          timeScale: 60,
          vocabulary: platform.vocabulary,
          eventsWithoutJobIds: true,
        },
        `matrix-cli-${platform.api}-${platform.vocabulary}-${platform.speed}`,
        undefined,
        platform.latency,
      );
      vm = kit.sim.fixtures().workloads.samples.vsphereVm ?? '';
      gold = kit.sim.fixtures().slaDomains.find((sla) => sla.name === 'Gold')?.id ?? '';
    });
    afterAll(() => kit?.close());

    const paw = (...args: string[]) =>
      runPaw(args, {
        cwd: kit.dir,
        env: kit.env({ PAW_PLATFORM_API: platform.api, PAW_LOG_LEVEL: 'warn' }),
      });

    // First: the command-line tests below take an on-demand snapshot of \`vm\` by hand, and a
    // reconciliation looks back 30 s before its first trigger attempt for its trace (clock skew,
    // docs/worker.md): that snapshot, owned by no run, would pass for this run's own.
    // Its one failure in CI (an SQL Server item whose job answered 404 after 3 trigger sends)
    // was two steps of one item at once: test/job-kinds/snapshot/lanes/slow-reconcile.test.ts.
    it(
      'a worker killed between trigger and record: the retry finds the snapshot through activity, and triggers nothing twice',
      { timeout: 300_000 },
      async () => {
        await kit.control('DELETE', '/_sim/stats');
        const connected = kit.sim.clusters
          .filter((cluster) => cluster.connectionState === 'Connected')
          .map((cluster) => cluster.id);
        const runId = await kit.fire({
          id: 'kill-after-trigger',
          kind: 'snapshot',
          schedule: { cron: '0 1 * * *' },
          targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'], clusterIds: connected },
          retention: { slaDomainName: 'Silver' },
          maxWait: '1h',
        });
        const env = { PAW_LOG_LEVEL: 'info', PAW_PLATFORM_API: platform.api };
        // The first worker dies at its second trigger's answer, the others on their way. At the
        // platform's latency every item's trigger has left by then (a second of the rate is in
        // line at the gate while the first answers are awaited), so the next worker only
        // reconciles, and the jobs it adopts have often finished by the time their activity is
        // read (it need not poll them): it dies after the second item it ends.
        const points =
          platform.speed === 'fast'
            ? ['snapshot.after-trigger@2', 'snapshot.after-trigger@3']
            : ['snapshot.after-trigger@2', 'snapshot.after-end@2'];
        for (const point of points) {
          const dying = kit.paw(['worker'], { ...env, PAW_CRASH_AT: point });
          const exit = await exitWithin(
            dying.exited,
            `the worker armed at ${point}`,
            120_000,
          ).catch((error: unknown) => {
            throw new Error(`${String(error)}; its log ends:\n${dying.stderr.slice(-6_000)}`);
          });
          expect(exit).toEqual({ code: null, signal: 'SIGKILL' });
        }
        const survivor = kit.paw(['worker'], env);
        const run = await kit.waitForRun(runId, 240_000);
        // What the platform did, once nothing more can be sent and it acted on all it received.
        await exitWithin(survivor.stop('SIGTERM'), 'the last worker');
        await kit.platformSettled();
        const items = await kit.items(runId);
        const triggers = kit.sim.stats().snapshotTriggers;
        // What any item that did not succeed came to, so a failure here says why.
        const unsuccessful = items.filter((item) => item.status !== 'succeeded');
        expect(run.status, JSON.stringify({ counts: run.counts, unsuccessful })).toBe('succeeded');
        expect(items.length).toBeGreaterThan(5);
        for (const item of items) {
          expect(item.status, item.itemKey).toBe('succeeded');
          expect(triggers[item.target ?? ''], `triggers of ${item.itemKey}`).toBe(1);
        }
        // Those whose answers were lost (at least the two at the crash points; others in flight
        // too) were found through the workload's activity or its new snapshot.
        const found = items.filter((item) => item.details?.['jobIdFrom'] === 'events');
        expect(found.length).toBeGreaterThanOrEqual(2);
        for (const item of found) {
          expect(
            item.details?.['trackedVia'] === 'activity' ||
              item.details?.['snapshotId'] !== undefined,
          ).toBe(true);
        }
      },
    );

    it('lists workloads, clusters and events, and snapshots a VM waiting for its job', async () => {
      await kit.control('DELETE', '/_sim/stats');
      const workloads = await paw('workloads', 'list', '--type', 'VSPHERE_VM', '--all', '--json');
      expect(workloads.code, workloads.stderr).toBe(0);
      const listed = JSON.parse(workloads.stdout) as { id: string; kind: string }[];
      expect(listed.length).toBeGreaterThan(3);
      expect(listed.every((workload) => workload.kind === 'VSPHERE_VM')).toBe(true);
      expect(listed.map((workload) => workload.id)).toContain(vm);

      const snapshot = await paw(
        'snapshot',
        vm,
        '--sla',
        gold,
        '--wait',
        '--poll-interval',
        '0.2',
        '--json',
      );
      expect(snapshot.code, snapshot.stderr).toBe(0);
      expect(JSON.parse(snapshot.stdout)).toMatchObject({ phase: 'succeeded', timedOut: false });
      expect(kit.sim.stats().snapshotTriggers[vm]).toBe(1);

      const clusters = await paw('clusters', 'list', '--json');
      expect(clusters.code, clusters.stderr).toBe(0);
      expect((JSON.parse(clusters.stdout) as unknown[]).length).toBe(kit.sim.clusters.length);

      const events = await paw('events', 'list', '--object', vm, '--json', '--all');
      expect(events.code, events.stderr).toBe(0);
      expect((JSON.parse(events.stdout) as { objectId: string }[]).length).toBeGreaterThan(0);
    });

    it('pauses and resumes an SLA Domain on one cluster, and shows it', async () => {
      const cluster =
        kit.sim.clusters.find((entry) => entry.connectionState === 'Connected')?.id ?? '';
      const pause = await paw('sla', 'pause', gold, '--cluster', cluster, '--json');
      expect(pause.code, pause.stderr).toBe(0);
      const paused = JSON.parse(pause.stdout) as {
        clusters: { clusterId: string; pauseStatus: string }[];
      };
      expect(paused.clusters.find((entry) => entry.clusterId === cluster)?.pauseStatus).toBe(
        'PAUSED',
      );

      const list = await paw('sla', 'list', '--paused', '--json');
      expect(list.code, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { id: string }[]).map((sla) => sla.id)).toContain(gold);

      const resume = await paw('sla', 'resume', gold, '--cluster', cluster, '--json');
      expect(resume.code, resume.stderr).toBe(0);
      const get = await paw('sla', 'get', gold, '--json');
      const state = JSON.parse(get.stdout) as {
        clusters: { clusterId: string; pauseStatus: string }[];
      };
      expect(state.clusters.find((entry) => entry.clusterId === cluster)?.pauseStatus).toBe(
        'NOT_PAUSED',
      );
    });
  },
);
