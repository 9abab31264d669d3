import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { startPlatformTestKit, type PlatformTestKit } from '../platform-test-kit.js';

describe('the REST client against the simulator', () => {
  let kit: PlatformTestKit;
  let client: PlatformClient;

  beforeAll(async () => {
    kit = await startPlatformTestKit({ workloads: 137, seed: 5 });
    client = await kit.client({ env: { PAW_PLATFORM_PAGE_SIZE: '40' } });
  });
  afterAll(() => kit.close());

  it('walks every workload across pages with one token', async () => {
    const pages = [];
    for await (const page of client.rest.workloads.list().pages()) pages.push(page);
    expect(pages.map((page) => page.nodes.length)).toEqual([40, 40, 40, 17]);
    expect(pages[0]?.count).toBe(137);
    const ids = pages.flatMap((page) => page.nodes.map((workload) => workload.id));
    expect(new Set(ids).size).toBe(137);
    expect(client.tokens.stats.tokenRequests).toBe(1);
  });

  it('gets a workload and reports an unknown one as NotFoundError', async () => {
    const [first] = await client.rest.workloads.list().toArray(1);
    if (first === undefined) throw new Error('no workload');
    const workload = await client.rest.workloads.get(first.id);
    expect(workload).toMatchObject({ id: first.id, name: first.name, type: first.type });
    const error = await client.rest.workloads
      .get('00000000-0000-4000-8000-000000000000')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'NOT_FOUND', operation: 'getWorkload' });
  });
});
