import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConflictError,
  InvalidRequestError,
  NotFoundError,
} from '../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import { startPlatformTestKit, type PlatformTestKit } from './platform-test-kit.js';

describe('SLA Domains, clusters and events through the REST client', () => {
  let kit: PlatformTestKit;
  let client: PlatformClient;

  beforeAll(async () => {
    kit = await startPlatformTestKit({ workloads: 60, seed: 17 });
    client = await kit.client({ env: { PAW_PLATFORM_PAGE_SIZE: '3' } });
  });
  afterAll(() => kit.close());

  it('lists clusters with their type, state and version, filtered by name', async () => {
    const clusters = await client.rest.clusters.list().toArray();
    expect(clusters.length).toBe(kit.sim.fixtures().clusters.length);
    expect(clusters.some((cluster) => cluster.connectionState === 'Disconnected')).toBe(true);
    const [first] = clusters;
    const byName = await client.rest.clusters.list({ name: first?.name }).toArray();
    expect(byName.map((cluster) => cluster.id)).toContain(first?.id);
  });

  it('creates, updates, assigns, pauses, resumes, unassigns and deletes an SLA Domain', async () => {
    const clusters = await client.rest.clusters.list({ connectionState: 'Connected' }).toArray();
    const created = await client.rest.slaDomains.create({
      name: 'Client Test Nightly',
      description: 'made by a test',
      objectTypes: ['VSPHERE_VM'],
      frequency: { unit: 'DAILY', interval: 1 },
      retention: { unit: 'DAYS', duration: 14 },
      clusterIds: clusters.map((cluster) => cluster.id),
    });
    expect(created).toMatchObject({ name: 'Client Test Nightly', protectedWorkloadCount: 0 });
    await expect(
      client.rest.slaDomains.create({
        name: 'Client Test Nightly',
        objectTypes: ['VSPHERE_VM'],
        frequency: { unit: 'DAILY', interval: 1 },
        retention: { unit: 'DAYS', duration: 14 },
      }),
    ).rejects.toBeInstanceOf(ConflictError);

    const updated = await client.rest.slaDomains.update(created.id, {
      retention: { unit: 'WEEKS', duration: 2 },
    });
    expect(updated.retention).toEqual({ unit: 'WEEKS', duration: 2 });

    const vms = await client.rest.workloads.list({ type: 'VSPHERE_VM' }).toArray(2);
    const assigned = await client.rest.slaDomains.assign(
      created.id,
      vms.map((vm) => vm.id),
    );
    expect(assigned.protectedWorkloadCount).toBe(2);
    const db = (await client.rest.workloads.list({ type: 'MSSQL_DATABASE' }).toArray(1))[0];
    await expect(client.rest.slaDomains.assign(created.id, [db?.id ?? ''])).rejects.toBeInstanceOf(
      InvalidRequestError,
    );

    const target = created.clusters?.[0]?.clusterId ?? '';
    const paused = await client.rest.slaDomains.pause(created.id, [target]);
    expect(paused.clusters?.find((c) => c.clusterId === target)?.pauseStatus).toBe('PAUSED');
    const pausedOnly = await client.rest.slaDomains
      .list({ filterField: 'SHOW_PAUSED_SLAS_ONLY', filterText: 'true' })
      .toArray();
    expect(pausedOnly.map((sla) => sla.id)).toContain(created.id);
    const resumed = await client.rest.slaDomains.resume(created.id);
    expect(resumed.clusters?.every((c) => c.pauseStatus !== 'PAUSED')).toBe(true);

    await client.rest.slaDomains.unassign(
      created.id,
      vms.map((vm) => vm.id),
    );
    await client.rest.slaDomains.delete(created.id);
    await expect(client.rest.slaDomains.get(created.id)).rejects.toBeInstanceOf(NotFoundError);

    const events = await client.rest.events
      .list({ objectId: created.id, type: 'CONFIGURATION' })
      .toArray();
    expect(events.length).toBeGreaterThanOrEqual(5);
    expect(events.every((event) => event.objectId === created.id)).toBe(true);
    const times = events.map((event) => event.time);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('finds SLA Domains by exact name', async () => {
    const [gold] = await client.rest.slaDomains
      .list({ filterField: 'NAME_EXACT_MATCH', filterText: 'Gold' })
      .toArray();
    expect(gold?.name).toBe('Gold');
    expect((await client.rest.slaDomains.get(gold?.id ?? '')).id).toBe(gold?.id);
  });
});
