import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpsServer } from '../../src/ops/ops-server.js';
import type { RunView } from '../../src/ops/dashboard/dashboard-model.js';
import { MAX_CHUNK_BYTES } from '../../src/outcomes/packed-chunks.js';
import { OutcomeKeys } from '../../src/outcomes/outcome-keys.js';
import { RunPacker } from '../../src/outcomes/run-packer.js';
import { captureLogs } from '../testkit/log-capture.js';
import { deflateBomb } from '../testkit/deflate-bomb.js';
import { runPaw } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';
import { recordRun } from './recorded-runs.js';
import { startTestOpsServer } from './test-ops-server.js';

const GIB = 1024 ** 3;
const MB = 1_000_000;

/** Two ended nights of 300 succeeded items each, packed (three chunks each). */
function night(runId: string) {
  return {
    runId,
    definitionId: 'nightly',
    items: Array.from({ length: 300 }, (_, index) => ({
      key: `vm-${String(index).padStart(4, '0')}`,
      status: 'succeeded' as const,
      target: `vm-${String(index).padStart(4, '0')}`,
      targetName: `prod-vm-${index}`,
    })),
  };
}

/**
 * A packed chunk that inflates to 1 GiB (someone with write access to Redis): the run it is in
 * is reported corrupt, clearly, and everything else is served; inflating stops at what 128 items
 * can be (2 MiB), so memory stays modest. Before, `GET /api/runs/<run>` inflated it whole (a
 * 2 GB one killed `paw start`) and an export died with a stack, leaving its `.partial` file.
 */
describe('a packed chunk that inflates to 1 GiB', () => {
  const logs = captureLogs();
  let redis: Redis;
  let prefix: string;
  let server: OpsServer;
  let dir: string;

  beforeAll(async () => {
    redis = connectTestRedis();
    prefix = uniquePrefix('corrupt-chunk');
    dir = await mkdtemp(join(tmpdir(), 'paw-corrupt-chunk-'));
    const keys = new OutcomeKeys(prefix);
    const packer = new RunPacker(redis, keys);
    for (const runId of ['nightly@bad', 'nightly@good']) {
      await recordRun(redis, prefix, night(runId));
      expect((await packer.pack(runId)).packed, runId).toBe(true);
    }
    const [first] = await redis.zrange(keys.packedIndex('nightly@bad'), '0', '0');
    await redis.hset(keys.packed('nightly@bad'), first ?? '', await deflateBomb(GIB));
    server = await startTestOpsServer('corrupt-chunk', { PAW_REDIS_PREFIX: prefix }, logs.logger);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await redis?.quit();
    await rm(dir, { recursive: true, force: true });
  });

  it('is reported as that run’s corrupt chunk; the other run, the list and the page are served', async () => {
    const rssBefore = process.memoryUsage().rss;
    const bad = await fetch(`${server.url}/api/runs/nightly@bad`);
    expect(bad.status).toBe(200);
    const view = (await bad.json()) as RunView;
    expect(view.run.runId).toBe('nightly@bad');
    expect(view.items).toEqual([]);
    expect(view.itemsError).toMatch(
      new RegExp(
        `^run nightly@bad: a packed chunk of its items is corrupt \\(it inflates to more than ${MAX_CHUNK_BYTES} bytes, more than 128 items can be\\)`,
      ),
    );
    const good = (await (await fetch(`${server.url}/api/runs/nightly@good`)).json()) as RunView;
    expect(good.itemsError).toBeUndefined();
    expect(good.run.counts.succeeded).toBe(300);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/run nightly@bad: a packed chunk of its items is corrupt/);
    const runs = await fetch(`${server.url}/api/runs`);
    expect(runs.status).toBe(200);
    expect(((await runs.json()) as unknown[]).length).toBe(2);
    // A route that reads the items whole answers with the same message, not zlib's.
    const items = await fetch(`${server.url}/api/items?target=vm-0000&limit=1000`);
    expect(items.status).toBe(500);
    const body = (await items.json()) as { error: string };
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(/^run nightly@bad: a packed chunk of its items is corrupt/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(process.memoryUsage().rss - rssBefore, 'resident memory growth').toBeLessThan(100 * MB);
  });

  it('ends `paw outcomes --export` of that run with a clear error, exit 1 and no partial file', async () => {
    const out = join(dir, 'bad.jsonl');
    const result = await runPaw(
      ['outcomes', '--run', 'nightly@bad', '--export', 'jsonl', '--out', out],
      {
        cwd: dir,
        env: { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix },
      },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^paw: run nightly@bad: a packed chunk of its items is corrupt \(it inflates to more than \d+ bytes/m,
    );
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await readdir(dir)).toEqual([]);
    const good = await runPaw(
      ['outcomes', '--run', 'nightly@good', '--export', 'jsonl', '--out', out],
      {
        cwd: dir,
        env: { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix },
      },
    );
    expect(good.stderr).toMatch(/300 items exported/);
    expect(await readdir(dir)).toEqual(['bad.jsonl']);
  });
});
