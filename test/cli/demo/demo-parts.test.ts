import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoDefinitionsYaml } from '../../../src/cli/demo/demo-definitions.js';
import { judgeDemoRuns, type EndedRun } from '../../../src/cli/demo/demo-verdict.js';
import { checkDefinitions } from '../../../src/definitions/load-definitions.js';
import type { ItemRecord, RunRecord } from '../../../src/outcomes/outcome-records.js';
import { CronSchedule } from '../../../src/definitions/schedule/cron-schedule.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

const COUNTS = {
  total: 0,
  queued: 0,
  running: 0,
  succeeded: 0,
  failed: 0,
  skipped: 0,
  timedOut: 0,
  canceled: 0,
};

function run(
  kind: RunRecord['kind'],
  status: RunRecord['status'],
  extra: Partial<RunRecord> = {},
): RunRecord {
  return {
    runId: `demo-${kind}@20250101T000000Z`,
    definitionId: `demo-${kind}`,
    kind,
    fireTime: '2025-01-01T00:00:00.000Z',
    trigger: 'cron',
    status,
    createdAt: '2025-01-01T00:00:00.000Z',
    attempts: 1,
    counts: COUNTS,
    notify: false,
    ...extra,
  };
}

function item(status: ItemRecord['status'], extra: Partial<ItemRecord> = {}): ItemRecord {
  return {
    runId: 'r',
    itemKey: `k-${status}`,
    status,
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

describe('the demo definitions', () => {
  let kit: SimulatorKit;
  let sim: SimulatorHandle;
  beforeAll(async () => {
    // The demo's own simulator is rate-limited; so is this one (the kit's default is not).
    kit = await startSimulatorKit({ workloads: 20, rateLimit: { requestsPerSecond: 50 } }, 'demo');
    sim = kit.sim;
  });
  afterAll(() => kit.close());

  it('validate through the real loader, and fire a few seconds after the start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paw-demo-test-'));
    const start = new Date('2025-06-01T10:00:50Z');
    await writeFile(
      join(dir, 'demo.yaml'),
      demoDefinitionsYaml({ fixtures: sim.fixtures(), start, sinkFile: join(dir, 'sink.json') }),
    );
    const report = await checkDefinitions(dir);
    expect(report.problems).toEqual([]);
    const firstFire = (id: string): number => {
      const definition = report.definitions.find(
        (loaded) => loaded.definition.id === id,
      )?.definition;
      if (definition === undefined) throw new Error(`no ${id}`);
      const fire = CronSchedule.create(definition.schedule.cron, 'UTC').nextFires(start, 1)[0];
      return ((fire?.getTime() ?? 0) - start.getTime()) / 1000;
    };
    expect(firstFire('demo-snapshots')).toBe(3);
    expect(firstFire('demo-window')).toBe(8);
    expect(firstFire('demo-rotation')).toBe(12);
    const snapshots = report.definitions[0]?.definition;
    expect(snapshots?.kind === 'snapshot' && snapshots.targets.clusterIds).toHaveLength(3);
  });
});

describe('the demo verdict', () => {
  const good: EndedRun[] = [
    {
      run: run('snapshot', 'failed'),
      items: [
        item('succeeded'),
        item('failed', { errorCode: 'SNAPSHOT_FAILED' }),
        item('canceled', { errorCode: 'SNAPSHOT_CANCELED' }),
      ],
    },
    { run: run('snapshot', 'skipped', { reason: 'overlap' }), items: [] },
    {
      run: run('sla-window', 'succeeded'),
      items: [item('succeeded'), item('skipped', { reason: 'UNKNOWN' })],
    },
    { run: run('rotate-secret', 'succeeded'), items: [item('succeeded')] },
  ];

  it('passes when every failure is one the simulator injects', () => {
    expect(judgeDemoRuns(good).filter((check) => !check.ok)).toEqual([]);
  });

  it.each([
    [
      'a timed-out snapshot',
      [{ run: run('snapshot', 'failed'), items: [item('timed-out')] }],
      /injected faults/,
    ],
    [
      'a failure of paw',
      [{ run: run('snapshot', 'failed'), items: [item('failed', { errorCode: 'UNEXPECTED' })] }],
      /injected faults/,
    ],
    ['a run still running', [{ run: run('sla-window', 'running'), items: [] }], /every run ended/],
    ['a missed fire', [{ run: run('snapshot', 'missed'), items: [] }], /no fire was missed/],
    [
      'a run-level error',
      [{ run: run('snapshot', 'failed', { errorCode: 'RETENTION_NOT_FOUND' }), items: [] }],
      /failed as a whole/,
    ],
    [
      'a failed rotation',
      [
        {
          run: run('rotate-secret', 'failed'),
          items: [item('failed', { errorCode: 'SNAPSHOT_FAILED' })],
        },
      ],
      /injected faults/,
    ],
  ] as const)('fails on %s', (_, extra, what) => {
    const failed = judgeDemoRuns([...good, ...extra]).filter((check) => !check.ok);
    expect(failed.map((check) => check.what)).toEqual([expect.stringMatching(what)]);
  });

  it('fails when a kind never ended', () => {
    const failed = judgeDemoRuns(good.filter(({ run: r }) => r.kind !== 'rotate-secret'));
    expect(failed.filter((check) => !check.ok).map((check) => check.what)).toEqual([
      'a rotate-secret run took place and ended',
    ]);
  });
});
