// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';
import { eventually } from '../testkit/eventually.js';

interface Event {
  id: string;
  time: string;
  type: string;
  status: string;
  severity: string;
  objectId: string;
  jobId: string | null;
}

describe('clusters', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({ clusters: 7, seed: 2 });
  });
  afterAll(() => t.close());

  it('lists clusters with the record fields, in name order', async () => {
    const response = await t.rest('GET', '/clusters');
    expect(response.status).toBe(200);
    const nodes = response.body.data.nodes as { name: string }[];
    expect(response.body.data.count).toBe(7);
    expect(nodes.map((node) => node.name)).toEqual(nodes.map((node) => node.name).sort());
    for (const node of nodes) {
      expect(Object.keys(node).sort()).toEqual([
        'connectionState',
        'id',
        'name',
        'type',
        'version',
      ]);
    }
    expect(nodes).toContainEqual(
      expect.objectContaining({
        name: 'branch-robo-cl03',
        type: 'Robo',
        connectionState: 'Disconnected',
      }),
    );
  });

  it('filters by name, type and connection state, and pages with cursors', async () => {
    const byName = await t.rest('GET', '/clusters?name=PROD');
    expect(
      (byName.body.data.nodes as { name: string }[]).every((node) => node.name.includes('prod')),
    ).toBe(true);
    expect(byName.body.data.count).toBe(2);
    const cloud = await t.rest('GET', '/clusters?type=Cloud');
    expect(cloud.body.data.nodes).toEqual([expect.objectContaining({ name: 'aws-cloud-cl04' })]);
    const down = await t.rest('GET', '/clusters?connectionState=Disconnected');
    expect(down.body.data.count).toBeGreaterThanOrEqual(1);
    expect(
      (down.body.data.nodes as { connectionState: string }[]).every(
        (node) => node.connectionState === 'Disconnected',
      ),
    ).toBe(true);
    const first = await t.rest('GET', '/clusters?first=3');
    const second = await t.rest(
      'GET',
      `/clusters?first=3&after=${encodeURIComponent(first.body.data.pageInfo.endCursor as string)}`,
    );
    expect(second.body.data.pageInfo.hasPreviousPage).toBe(true);
    const all = await t.rest('GET', '/clusters');
    expect([...first.body.data.nodes, ...second.body.data.nodes]).toEqual(
      all.body.data.nodes.slice(0, 6),
    );
    for (const query of ['type=Mainframe', 'connectionState=Sleeping', 'first=-1']) {
      expect((await t.rest('GET', `/clusters?${query}`)).status).toBe(400);
    }
  });

  it('reflects connection-state changes made through /_sim', async () => {
    const cluster = t.fixtures.clusters[0];
    if (cluster === undefined) throw new Error('no cluster');
    const changed = await t.api('PUT', `/_sim/clusters/${cluster.id}/connection-state`, {
      json: { connectionState: 'Initializing' },
    });
    expect(changed.status).toBe(200);
    const listed = await t.rest('GET', '/clusters?connectionState=Initializing');
    expect((listed.body.data.nodes as { id: string }[]).map((node) => node.id)).toContain(
      cluster.id,
    );
    expect(t.sim.clusters[0]?.connectionState).toBe('Initializing');
    await t.api('PUT', `/_sim/clusters/${cluster.id}/connection-state`, {
      json: { connectionState: 'Connected' },
    });
    const bad = await t.api('PUT', `/_sim/clusters/${cluster.id}/connection-state`, {
      json: { connectionState: 'Asleep' },
    });
    expect(bad.status).toBe(400);
    expect(
      (
        await t.api('PUT', '/_sim/clusters/nope/connection-state', {
          json: { connectionState: 'Connected' },
        })
      ).status,
    ).toBe(404);
  });
});

describe('events', () => {
  let t: TestSimulator;

  beforeAll(async () => {
    t = await startTestSimulator({
      seed: 8,
      timeScale: 2000,
      jobs: {
        failureRate: 0.5,
        cancelRate: 0.2,
        durationSeconds: { median: 200, sigma: 0.2, min: 100 },
      },
    });
  });
  afterAll(() => t.close());

  it('lists job events newest first, filters them, and pages through them', async () => {
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const database = t.fixtures.workloads.samples.mssqlDatabase ?? '';
    const jobIds: string[] = [];
    for (let index = 0; index < 12; index++) {
      const response = await t.rest(
        'POST',
        `/workloads/${index % 2 === 0 ? vm : database}/snapshots`,
      );
      expect(response.status).toBe(202);
      jobIds.push(response.body.data.id as string);
    }
    // 12 jobs, 3 events each once all have ended.
    const all = await eventually('every job to end', async () => {
      const response = await t.rest('GET', '/events?type=BACKUP&first=1000');
      return response.body.data.count === 36 ? (response.body.data.nodes as Event[]) : undefined;
    });
    const times = all.map((event) => Date.parse(event.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(new Set(all.map((event) => event.jobId))).toEqual(new Set(jobIds));
    for (const jobId of jobIds) {
      const statuses = all.filter((event) => event.jobId === jobId).map((event) => event.status);
      expect(statuses).toHaveLength(3);
      expect(['SUCCESS', 'FAILURE', 'CANCELED']).toContain(statuses[0]);
      expect(statuses.slice(1)).toEqual(['RUNNING', 'QUEUED']);
    }
    const failures = all.filter((event) => event.status === 'FAILURE');
    expect(failures.every((event) => event.severity === 'SEVERITY_CRITICAL')).toBe(true);

    // Filters.
    const ofVm = await t.rest('GET', `/events?objectId=${vm}&first=1000`);
    expect(ofVm.body.data.count).toBe(18);
    const failed = await t.rest('GET', '/events?status=FAILURE&first=1000');
    expect(failed.body.data.count).toBe(failures.length);
    const critical = await t.rest('GET', '/events?severity=SEVERITY_CRITICAL&first=1000');
    expect(critical.body.data.count).toBe(failures.length);
    const newest = all[0];
    const oldest = all.at(-1);
    const window = await t.rest(
      'GET',
      `/events?type=BACKUP&first=1000&startTime=${oldest?.time ?? ''}&endTime=${oldest?.time ?? ''}`,
    );
    expect((window.body.data.nodes as Event[]).every((event) => event.time === oldest?.time)).toBe(
      true,
    );
    expect(window.body.data.count).toBeGreaterThanOrEqual(1);
    const fromNewest = await t.rest(
      'GET',
      `/events?type=BACKUP&startTime=${encodeURIComponent(newest?.time ?? '')}`,
    );
    expect(
      (fromNewest.body.data.nodes as Event[]).every((event) => event.time === newest?.time),
    ).toBe(true);

    // Pages of 5 give the same sequence as one page.
    const paged: Event[] = [];
    let after: string | undefined;
    do {
      const response = await t.rest(
        'GET',
        `/events?type=BACKUP&first=5${after === undefined ? '' : `&after=${encodeURIComponent(after)}`}`,
      );
      paged.push(...(response.body.data.nodes as Event[]));
      after = response.body.data.pageInfo.hasNextPage
        ? (response.body.data.pageInfo.endCursor as string)
        : undefined;
    } while (after !== undefined);
    expect(paged).toEqual(all);
  });

  it('refuses malformed filters', async () => {
    for (const query of [
      'startTime=yesterday',
      'endTime=2024-13-45T00:00:00Z',
      'type=BOOT',
      'status=DONE',
      'severity=LOUD',
      'startTime=2025-01-02T00:00:00Z&endTime=2025-01-01T00:00:00Z',
    ]) {
      const response = await t.rest('GET', `/events?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ARGUMENT');
    }
  });
});
