import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTargets } from '../../../src/job-kinds/snapshot/targets.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { startPlatformTestKit, type PlatformTestKit } from '../../platform/platform-test-kit.js';

/**
 * A definition's `targets.ids` costs one `getWorkload` call each while they are few; many ids
 * are answered by one paged listing instead (100,000 ids were 100,000 calls per resolution).
 */
describe('resolving listed ids', () => {
  let kit: PlatformTestKit;
  let client: PlatformClient;
  let allIds: string[];

  beforeAll(async () => {
    kit = await startPlatformTestKit({ workloads: 150, seed: 11 });
    client = await kit.client();
    allIds = [];
    for await (const workload of client.api.workloads.list({})) allIds.push(workload.id);
  });
  afterAll(() => kit.close());

  /** The platform requests `work` made, by operation. */
  async function requestsOf(work: () => Promise<unknown>): Promise<Record<string, number>> {
    const before = { ...kit.sim.stats().byOperation };
    await work();
    const after = kit.sim.stats().byOperation;
    return Object.fromEntries(
      Object.entries(after)
        .map(([operation, count]) => [operation, count - (before[operation] ?? 0)] as const)
        .filter(([, count]) => count > 0),
    );
  }

  it('looks up a few ids one by one', async () => {
    const ids = allIds.slice(0, 5);
    const requests = await requestsOf(async () => {
      const resolved = await resolveTargets({ ids }, client);
      expect(resolved.workloads.map((workload) => workload.id)).toEqual(ids);
    });
    expect(requests['getWorkload']).toBe(5);
    expect(requests['listWorkloads']).toBeUndefined();
  });

  it('answers 120 ids (some unknown) with one listing, in the order listed, each once', async () => {
    expect(allIds.length).toBe(150);
    const known = allIds.slice(10, 120).reverse();
    const unknown = Array.from({ length: 10 }, (_, index) => `no-such-workload-${index}`);
    const ids = [...known.slice(0, 50), ...unknown, ...known.slice(50), known[0] ?? ''];
    let resolved: Awaited<ReturnType<typeof resolveTargets>> | undefined;
    const requests = await requestsOf(async () => {
      resolved = await resolveTargets({ ids }, client);
    });
    expect(resolved?.workloads.map((workload) => workload.id)).toEqual(known);
    expect(resolved?.unknownIds).toEqual(
      unknown.map((id) => ({ id, message: 'the platform lists no workload with this id' })),
    );
    expect(requests['getWorkload']).toBeUndefined();
    // One listing of 150 workloads: its pages, whatever the page size.
    const pages = requests['listWorkloads'] ?? 0;
    expect(pages).toBeGreaterThanOrEqual(1);
    expect(pages).toBeLessThanOrEqual(Math.ceil(150 / 50));
  });

  it('answers many ids and the selectors from the same listing', async () => {
    const ids = allIds.slice(0, 30);
    let resolved: Awaited<ReturnType<typeof resolveTargets>> | undefined;
    const requests = await requestsOf(async () => {
      resolved = await resolveTargets({ ids, types: ['VSPHERE_VM'] }, client);
    });
    const workloads = resolved?.workloads ?? [];
    expect(workloads.slice(0, 30).map((workload) => workload.id)).toEqual(ids);
    // The rest are the selector's, none twice.
    expect(workloads.slice(30).every((workload) => workload.type === 'VSPHERE_VM')).toBe(true);
    expect(new Set(workloads.map((workload) => workload.id)).size).toBe(workloads.length);
    expect(workloads.length).toBeGreaterThan(30);
    expect(requests['getWorkload']).toBeUndefined();
  });
});
