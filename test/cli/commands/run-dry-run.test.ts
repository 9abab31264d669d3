import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/shared/logger.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { startWorkerTestKit, type WorkerTestKit } from '../../testkit/worker-kit.js';

/** `paw run <id> --dry-run` (real processes, the simulator): what a run would do, touching nothing. */
describe('paw run --dry-run', () => {
  let kit: WorkerTestKit;
  let client: PlatformClient;

  beforeAll(async () => {
    kit = await startWorkerTestKit({ workloads: 30, seed: 9 }, 'dry-run');
    client = await createPlatformClient({ settings: kit.settings(), logger: silentLogger() });
  });
  afterAll(async () => {
    await client?.close();
    await kit?.close();
  });

  async function dryRun(
    id: string,
  ): Promise<{ code: number | null; json: Record<string, unknown> }> {
    const paw = kit.paw(['run', id, '--dry-run', '--json'], { PAW_LOG_LEVEL: 'warn' });
    const { code } = await paw.exited;
    return { code, json: JSON.parse(paw.stdout) as Record<string, unknown> };
  }

  it('previews each kind from the platform, and triggers, pauses, rotates and records nothing', async () => {
    const gold = (await client.api.slaDomains.list().toArray()).find((sla) => sla.name === 'Gold');
    const [handPaused] = gold?.clusters ?? [];
    expect(handPaused).toBeDefined();
    await client.api.slaDomains.pause(gold?.id ?? '', [handPaused?.clusterId ?? '']);
    const accountId = kit.sim.credentials.client_id;
    await kit.writeJobs(
      [
        'id: snap',
        'kind: snapshot',
        'schedule: { cron: "0 1 * * *" }',
        'targets: { ids: [no-such-workload], types: [VSPHERE_VM, LINUX_FILESET] }',
        'retention: { slaDomainName: Gold }',
        '---',
        'id: snap-bad-retention',
        'kind: snapshot',
        'schedule: { cron: "0 1 * * *" }',
        'targets: { types: [VSPHERE_VM] }',
        'retention: { slaDomainName: No Such Domain }',
        '---',
        'id: window',
        'kind: sla-window',
        'schedule: { cron: "0 22 * * 6", duration: 2h }',
        'slaDomains: { names: [Gold] }',
        '---',
        'id: rotate',
        'kind: rotate-secret',
        'schedule: { cron: "0 3 1 * *" }',
        `serviceAccount: { clientId: "${accountId}" }`,
        'sink: { file: rotated.json }',
        '',
      ].join('\n'),
    );
    const statsBefore = kit.sim.stats();

    const snap = await dryRun('snap');
    expect(snap.code).toBe(0);
    expect(snap.json).toMatchObject({
      dryRun: true,
      kind: 'snapshot',
      retention: expect.stringMatching(/^Gold \(/) as unknown,
    });
    const snapshotted = snap.json['snapshot'] as { type: string }[];
    const skipped = snap.json['skip'] as { type: string; reason: string }[];
    expect(snapshotted.length).toBeGreaterThan(0);
    expect(snapshotted.every((w) => w.type === 'VSPHERE_VM')).toBe(true);
    expect(skipped.length).toBeGreaterThan(0);
    expect(skipped[0]?.reason).toMatch(/on-demand snapshots are supported only/);
    expect(snap.json['unknownIds']).toEqual([
      { id: 'no-such-workload', message: expect.any(String) as unknown },
    ]);

    const bad = await dryRun('snap-bad-retention');
    expect(bad.code).toBe(1);
    expect(bad.json['wouldFail']).toMatch(/No Such Domain/);

    const window = await dryRun('window');
    expect(window.code).toBe(0);
    const targets = window.json['targets'] as { clusterId: string; action: string }[];
    expect(targets.find((t) => t.clusterId === handPaused?.clusterId)?.action).toBe('leave');
    expect(targets.filter((t) => t.action === 'pause').length).toBe(targets.length - 1);

    const rotate = await dryRun('rotate');
    expect(rotate.code).toBe(0);
    expect(rotate.json).toMatchObject({
      kind: 'rotate-secret',
      clientId: accountId,
      accountName: expect.any(String) as unknown,
    });

    // Nothing happened: no trigger, no pause beyond the hand pause, no rotation, no run on record.
    const statsAfter = kit.sim.stats();
    expect(statsAfter.snapshotTriggers).toEqual(statsBefore.snapshotTriggers);
    // Only reads reached the platform (operation ids of writes never counted up), beside each
    // command's own access token and its revocation at exit.
    const writes = (stats: typeof statsAfter): Record<string, number> =>
      Object.fromEntries(
        Object.entries(stats.byOperation).filter(
          ([operation]) =>
            /snapshot|pause|resume|rotate|create|delete|update/i.test(operation) &&
            !/^(createClientToken|deleteSession)$/.test(operation),
        ),
      );
    expect(writes(statsAfter)).toEqual(writes(statsBefore));
    const goldAfter = await client.api.slaDomains.get(gold?.id ?? '');
    expect(goldAfter.clusters?.map((c) => c.pauseStatus)).toEqual(
      gold?.clusters?.map((c) =>
        c.clusterId === handPaused?.clusterId ? 'PAUSED' : c.pauseStatus,
      ),
    );
    expect(await kit.queries.listRuns({})).toEqual([]);
  });
});
