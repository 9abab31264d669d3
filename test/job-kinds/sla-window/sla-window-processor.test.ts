import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import { SlaHolds } from '../../../src/job-kinds/sla-window/sla-holds.js';
import { WindowKeys } from '../../../src/job-kinds/sla-window/window-keys.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { startProcessorHarness, type ProcessorHarness } from '../processor-harness.js';
import { eventually } from '../../testkit/eventually.js';

let harness: ProcessorHarness;
let holds: SlaHolds;
let disconnectedClusterId: string;

beforeAll(async () => {
  harness = await startProcessorHarness({ label: 'windows' });
  holds = new SlaHolds(harness.redis, new WindowKeys(harness.settings.redis.prefix));
  disconnectedClusterId =
    harness.sim.clusters.find((cluster) => cluster.connectionState === 'Disconnected')?.id ?? '';
  await harness.startWorker('sla-window');
});

afterAll(async () => {
  await harness?.close();
});

/** A fresh SLA Domain on every cluster, so that tests do not share pause state. */
async function newSlaDomain(name: string): Promise<{ id: string; clusterIds: string[] }> {
  const domain = await harness.platform.rest.slaDomains.create({
    name: `${name}-${Math.random().toString(36).slice(2, 8)}`,
    objectTypes: ['VSPHERE_VM'],
    frequency: { unit: 'DAILY', interval: 1 },
    retention: { unit: 'DAYS', duration: 7 },
  });
  return { id: domain.id, clusterIds: (domain.clusters ?? []).map((c) => c.clusterId) };
}

async function pauseState(slaDomainId: string): Promise<Record<string, string>> {
  const domain = await harness.platform.rest.slaDomains.get(slaDomainId);
  return Object.fromEntries(
    (domain.clusters ?? []).map((cluster) => [cluster.clusterId, cluster.pauseStatus ?? '']),
  );
}

function windowDefinition(
  id: string,
  duration: string,
  slaDomains: Record<string, unknown>,
): JobDefinition {
  return exampleDefinition('sla-window', {
    id,
    schedule: { cron: '0 0 * * * *', duration },
    slaDomains,
  });
}

// The tests use SLA Domains of their own, so they run side by side.
describe.concurrent('sla-window', () => {
  it('pauses at the start, resumes at the end, and records every item', async () => {
    const domain = await newSlaDomain('window-basic');
    const connected = domain.clusterIds.filter((id) => id !== disconnectedClusterId);
    const runId = await harness.fire(windowDefinition('basic', '3s', { ids: [domain.id] }));

    await eventually('the pause', async () => {
      const state = await pauseState(domain.id);
      return connected.every((id) => state[id] === 'PAUSED') ? state : undefined;
    });
    const open = await harness.outcomes.runs.get(runId);
    expect(open?.status).toBe('running');

    const run = await harness.waitForRun(runId);
    expect(run.status).toBe('succeeded');
    const state = await pauseState(domain.id);
    for (const id of domain.clusterIds) expect(state[id]).not.toBe('PAUSED');

    const pause = await harness.outcomes.items.get(runId, `${domain.id}/${connected[0]}/pause`);
    expect(pause).toMatchObject({ status: 'succeeded', action: 'pause', reason: 'paused' });
    const resume = await harness.outcomes.items.get(runId, `${domain.id}/${connected[0]}/resume`);
    expect(resume).toMatchObject({ status: 'succeeded', action: 'resume', reason: 'resumed' });

    // The disconnected cluster reads UNKNOWN: left alone on purpose, never resumed.
    const unknown = await harness.outcomes.items.get(
      runId,
      `${domain.id}/${disconnectedClusterId}/pause`,
    );
    expect(unknown?.status).toBe('skipped');
    expect(unknown?.reason).toMatch(/UNKNOWN.*cannot tell whether someone else paused it/);
    expect(
      await harness.outcomes.items.get(runId, `${domain.id}/${disconnectedClusterId}/resume`),
    ).toBeUndefined();
    expect(await holds.describe({ slaDomainId: domain.id, clusterId: connected[0] ?? '' })).toBe(
      undefined,
    );
  });

  it('leaves an SLA Domain someone else paused alone, and never resumes it', async () => {
    const domain = await newSlaDomain('window-prepaused');
    const [handPaused = '', other = ''] = domain.clusterIds.filter(
      (id) => id !== disconnectedClusterId,
    );
    await harness.platform.rest.slaDomains.pause(domain.id, [handPaused]);

    const runId = await harness.fire(
      windowDefinition('prepaused', '2s', { ids: [domain.id], clusterIds: [handPaused, other] }),
    );
    const run = await harness.waitForRun(runId);
    expect(run.status).toBe('succeeded');

    const state = await pauseState(domain.id);
    expect(state[handPaused]).toBe('PAUSED');
    expect(state[other]).toBe('NOT_PAUSED');
    const pause = await harness.outcomes.items.get(runId, `${domain.id}/${handPaused}/pause`);
    expect(pause?.status).toBe('skipped');
    expect(pause?.reason).toMatch(/already paused by someone else/);
    const resume = await harness.outcomes.items.get(runId, `${domain.id}/${handPaused}/resume`);
    expect(resume?.status).toBe('skipped');
    expect(resume?.reason).toMatch(/left paused/);
    expect(await harness.outcomes.items.get(runId, `${domain.id}/${other}/resume`)).toMatchObject({
      status: 'succeeded',
      reason: 'resumed',
    });
  });

  it('resumes an SLA Domain held by overlapping windows only when the last one ends', async () => {
    const domain = await newSlaDomain('window-overlap');
    const cluster = domain.clusterIds.find((id) => id !== disconnectedClusterId) ?? '';
    const slaDomains = { ids: [domain.id], clusterIds: [cluster] };
    // Long outlives short: short starts later and ends first.
    const long = await harness.fire(windowDefinition('overlap-long', '6s', slaDomains));
    await eventually('the first pause', async () =>
      (await pauseState(domain.id))[cluster] === 'PAUSED' ? true : undefined,
    );
    const short = await harness.fire(windowDefinition('overlap-short', '2s', slaDomains));

    const shortRun = await harness.waitForRun(short);
    expect(shortRun.status).toBe('succeeded');
    expect((await pauseState(domain.id))[cluster]).toBe('PAUSED');
    const shortResume = await harness.outcomes.items.get(short, `${domain.id}/${cluster}/resume`);
    expect(shortResume?.status).toBe('skipped');
    expect(shortResume?.reason).toMatch(
      /still held by 1 other open window.*the last of them to end resumes it/,
    );
    const record = await holds.describe({ slaDomainId: domain.id, clusterId: cluster });
    expect(record?.owner).toBe('paw');
    expect(Object.keys(record?.holders ?? {})).toEqual([long]);

    const longRun = await harness.waitForRun(long);
    expect(longRun.status).toBe('succeeded');
    expect((await pauseState(domain.id))[cluster]).toBe('NOT_PAUSED');
    expect(await holds.describe({ slaDomainId: domain.id, clusterId: cluster })).toBeUndefined();
  });

  it('records a name that matches no SLA Domain as a failed item', async () => {
    const runId = await harness.fire(
      windowDefinition('no-such', '1s', { names: ['No Such Domain'] }),
    );
    const run = await harness.waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(await harness.outcomes.items.get(runId, 'name:No Such Domain/pause')).toMatchObject({
      status: 'failed',
      errorCode: 'NOT_FOUND',
    });
  });

  it('does not pause when the run starts after its window ended', async () => {
    const domain = await newSlaDomain('window-late');
    const runId = await harness.fire(
      windowDefinition('late', '1s', { ids: [domain.id] }),
      new Date(Date.now() - 5_000),
    );
    const run = await harness.waitForRun(runId);
    expect(run.status).toBe('failed');
    expect(await harness.outcomes.items.get(runId, 'window/pause')).toMatchObject({
      status: 'failed',
      errorCode: 'WINDOW_ENDED',
    });
    const state = await pauseState(domain.id);
    expect(Object.values(state)).not.toContain('PAUSED');
  });
});
