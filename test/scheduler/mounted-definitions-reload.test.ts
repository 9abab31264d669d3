import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../../src/shared/free-port.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { eventually } from '../testkit/eventually.js';
import { KubeletVolume } from '../testkit/kubelet-volume.js';
import { PawProcess } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

let redis: Redis;
beforeAll(() => {
  redis = connectTestRedis();
});
afterAll(async () => {
  await redis.quit();
});

const everySecond = (id: string): string => `
id: ${id}
kind: snapshot
schedule: { cron: "* * * * * *", allowSubMinute: true, overlap: allow }
targets: { types: [VSPHERE_VM] }
keepForever: true
`;

/**
 * The scheduler in a folder laid out and updated as kubelet does it for a ConfigMap volume: it
 * loads the definitions, fires them, sees kubelet's swap and fires the definition it added.
 */
describe('job definitions from a ConfigMap volume (a real scheduler)', () => {
  for (const layout of [
    { name: 'the volume is the jobs folder', key: '', jobs: '' },
    {
      name: 'the jobs folder is a link in the volume (items with a path)',
      key: 'jobs/',
      jobs: 'jobs',
    },
  ]) {
    it(`loads, fires, reloads on the swap and fires what it added: ${layout.name}`, async () => {
      const volume = await KubeletVolume.create({
        [`${layout.key}alpha.yaml`]: everySecond('alpha'),
      });
      const prefix = uniquePrefix('kubelet');
      const env = {
        PAW_REDIS_URL: testRedisUrl(),
        PAW_REDIS_PREFIX: prefix,
        PAW_JOBS_DIR: join(volume.dir, layout.jobs),
      };
      const queries = new OutcomeQueries(redis, prefix);
      const fired = async (id: string): Promise<boolean> =>
        (await queries.listRuns({ definitionId: id, limit: 1 })).length > 0;
      const scheduler = new PawProcess(['scheduler'], { env, cwd: volume.dir });
      try {
        await scheduler.waitForStderr(/ready \(replica/, 60_000);
        expect(scheduler.stderr).toMatch(/1 definition from /);
        await eventually('alpha fires', () => fired('alpha'));

        await volume.update({
          [`${layout.key}alpha.yaml`]: everySecond('alpha'),
          [`${layout.key}beta.yaml`]: everySecond('beta'),
        });
        await scheduler.waitForStderr(/definitions reloaded: added beta/, 20_000);
        await eventually('beta fires', () => fired('beta'));

        // And again: the watch follows the volume from one swap to the next.
        await volume.update({ [`${layout.key}beta.yaml`]: everySecond('beta') });
        await scheduler.waitForStderr(/definitions reloaded: removed alpha/, 20_000);

        // An emptied ConfigMap is refused like any invalid change: the last valid set runs on
        // (with items, the jobs folder itself is gone).
        await volume.update({});
        await scheduler.waitForStderr(
          /definitions change refused \(1 problem\); still running the last valid set:\n {2}.*\(folder\): (holds no job definitions|does not exist)/,
          20_000,
        );
      } finally {
        await scheduler.stop('SIGTERM');
      }
    }, 120_000);
  }

  it('starts from an empty ConfigMap saying so (log, /readyz, metrics), and schedules what arrives', async () => {
    const volume = await KubeletVolume.create({});
    const prefix = uniquePrefix('kubelet-empty');
    const port = await findFreePort();
    const env = {
      PAW_REDIS_URL: testRedisUrl(),
      PAW_REDIS_PREFIX: prefix,
      PAW_JOBS_DIR: volume.dir,
      PAW_HTTP_PORT: String(port),
    };
    const get = async (path: string): Promise<string> =>
      (await fetch(`http://127.0.0.1:${port}${path}`)).text();
    const scheduler = new PawProcess(['scheduler'], { env, cwd: volume.dir });
    try {
      await scheduler.waitForStderr(/ready \(replica/, 60_000);
      expect(scheduler.stderr).toContain(
        `no job definitions: nothing is scheduled until some are added:\n  ${volume.dir}: (folder): holds no job definitions`,
      );
      expect(scheduler.logRecords()).toContainEqual(
        expect.objectContaining({ level: 50, dir: volume.dir }),
      );
      expect(JSON.parse(await get('/readyz'))).toMatchObject({
        status: 'ready',
        definitions: {
          status: 'none',
          count: 0,
          problems: [expect.stringContaining(`${volume.dir}: (folder): holds no job definitions`)],
        },
      });
      const metrics = await get('/metrics');
      expect(metrics).toMatch(/^paw_definitions_loaded 0$/m);
      expect(metrics).toMatch(/^paw_definitions_change_refused 0$/m);

      await volume.update({ 'alpha.yaml': everySecond('alpha') });
      await scheduler.waitForStderr(/definitions reloaded: added alpha/, 20_000);
      const queries = new OutcomeQueries(redis, prefix);
      await eventually(
        'alpha fires',
        async () => (await queries.listRuns({ definitionId: 'alpha', limit: 1 })).length > 0,
      );
      expect(JSON.parse(await get('/readyz'))).toMatchObject({
        definitions: { status: 'ok', count: 1 },
      });
      expect(await get('/metrics')).toMatch(/^paw_definitions_loaded 1$/m);
    } finally {
      await scheduler.stop('SIGTERM');
    }
  }, 120_000);
});
