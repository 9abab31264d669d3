import { rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../src/config/settings-schema.js';
import { silentLogger } from '../../src/shared/logger.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import { RunProducer } from '../../src/queue/run-producer.js';
import { RunQueues } from '../../src/queue/run-queues.js';
import { FireCoordinator } from '../../src/scheduler/fire-coordinator.js';
import { RunFirer } from '../../src/scheduler/run-firer.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { exampleDefinition } from '../testkit/definitions.js';
import type { RunRecord } from '../../src/outcomes/outcome-records.js';
import { jobsFolder } from '../testkit/definitions.js';
import { PawProcess } from '../testkit/paw-process.js';
import { connectTestRedis, testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';
import { eventually } from '../testkit/eventually.js';

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

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** How many times `pattern` occurs in what the process printed. */
function count(paw: PawProcess, pattern: RegExp): number {
  return (paw.stderr.match(new RegExp(pattern.source, 'g')) ?? []).length;
}

describe('reloading job definitions without a restart (two real scheduler replicas)', () => {
  it('adds, refuses a broken change while the old set keeps firing, and removes, on change and on SIGHUP', async () => {
    const prefix = uniquePrefix('reload');
    const dir = await jobsFolder({ 'alpha.yaml': everySecond('alpha') });
    const port = await freePort();
    const env = { PAW_REDIS_URL: testRedisUrl(), PAW_REDIS_PREFIX: prefix, PAW_JOBS_DIR: dir };
    // One replica watches the folder; the other does not and reloads on SIGHUP only.
    const watching = new PawProcess(['scheduler'], {
      env: { ...env, PAW_HTTP_PORT: String(port) },
      cwd: dir,
    });
    const hangUp = new PawProcess(['scheduler'], {
      env: { ...env, PAW_JOBS_WATCH: 'false' },
      cwd: dir,
    });
    const replicas = [watching, hangUp];
    const queries = new OutcomeQueries(redis, prefix);
    const runsOf = async (id: string): Promise<RunRecord[]> =>
      (await queries.listRuns({ definitionId: id, limit: 1000 })).sort(
        (a, b) => Date.parse(a.fireTime) - Date.parse(b.fireTime),
      );
    const firedAfter = async (id: string, at: number): Promise<boolean> =>
      (await runsOf(id)).some((run) => Date.parse(run.fireTime) > at);
    const readyz = async () =>
      (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as Record<string, unknown>;
    try {
      await Promise.all(replicas.map((r) => r.waitForStderr(/ready \(replica/, 60_000)));
      await eventually('alpha fires', () => firedAfter('alpha', 0));

      // 1. A new file: the watching replica picks it up by itself, the other on SIGHUP.
      await writeFile(join(dir, 'beta.yaml'), everySecond('beta'));
      await eventually(
        'the watcher reloads',
        async () => count(watching, /definitions reloaded: added beta/) === 1,
      );
      hangUp.child.kill('SIGHUP');
      await eventually(
        'SIGHUP reloads',
        async () => count(hangUp, /definitions reloaded: added beta/) === 1,
      );
      expect(hangUp.stderr).toMatch(/SIGHUP: reading the job definitions again/);
      await eventually('beta fires', () => firedAfter('beta', 0));

      // 2. A broken change is refused, with its problem; the last valid set keeps firing.
      await writeFile(
        join(dir, 'alpha.yaml'),
        everySecond('alpha').replace('"* * * * * *"', '"nope"'),
      );
      await eventually(
        'the refusal',
        async () => count(watching, /definitions change refused/) >= 1,
      );
      hangUp.child.kill('SIGHUP');
      await eventually(
        'the refusal on SIGHUP',
        async () => count(hangUp, /definitions change refused/) >= 1,
      );
      expect(watching.stderr).toMatch(/alpha\.yaml:4:19: schedule\.cron: "nope"/);
      expect(await readyz()).toMatchObject({
        status: 'ready',
        definitions: {
          status: 'change refused',
          count: 2,
          problems: [expect.stringMatching(/alpha\.yaml:4:19: schedule\.cron: "nope"/) as unknown],
        },
      });
      // The dashboard says so too, with the problem, above the definitions it keeps running.
      const dashboard = (await (await fetch(`http://127.0.0.1:${port}/api/dashboard`)).json()) as {
        refusedChange?: { problems: string[] };
        definitions: { id: string }[];
      };
      expect(dashboard.refusedChange?.problems).toEqual([
        expect.stringMatching(/alpha\.yaml:4:19: schedule\.cron: "nope"/),
      ]);
      expect(dashboard.definitions.map((definition) => definition.id).sort()).toEqual([
        'alpha',
        'beta',
      ]);
      const page = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(page).toMatch(
        /id="definitions-refused"[\s\S]*A change to the job definitions was refused[\s\S]*alpha\.yaml:4:19: schedule\.cron: &quot;nope&quot;/,
      );
      const metricsText = async (): Promise<string> =>
        (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(await metricsText()).toMatch(/^paw_definitions_change_refused 1$/m);
      const refusedAt = Date.now();
      await eventually('alpha still fires', () => firedAfter('alpha', refusedAt + 1000));

      // 3. Removing alpha (and so the broken file): alpha stops firing, beta goes on.
      await rm(join(dir, 'alpha.yaml'));
      await eventually(
        'the removal',
        async () => count(watching, /definitions reloaded: removed alpha/) === 1,
      );
      hangUp.child.kill('SIGHUP');
      await eventually(
        'the removal on SIGHUP',
        async () => count(hangUp, /definitions reloaded: removed alpha/) === 1,
      );
      const removedAt = Date.now();
      expect(await readyz()).toMatchObject({ definitions: { status: 'ok', count: 1 } });
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).not.toContain(
        'definitions-refused',
      );
      const after = await metricsText();
      expect(after).toMatch(/^paw_definitions_change_refused 0$/m);
      expect(after).toMatch(/^paw_definitions_loaded 1$/m);
      expect(after).toMatch(/^paw_definitions_reloads_total\{result="applied"\} 2$/m);
      expect(after).toMatch(/^paw_definitions_reloads_total\{result="refused"\} [1-9]/m);
      await eventually('beta fires after the removal', () => firedAfter('beta', removedAt + 2000));
      expect(await firedAfter('alpha', removedAt + 1000)).toBe(false);
    } finally {
      await Promise.all(replicas.map((replica) => replica.stop('SIGTERM')));
    }
    // Through every reload, each fire of each definition was handled once: one run per second.
    for (const id of ['alpha', 'beta']) {
      const seconds = (await runsOf(id)).map((run) => Date.parse(run.fireTime) / 1000);
      expect(new Set(seconds).size, id).toBe(seconds.length);
      for (let index = 1; index < seconds.length; index++) {
        expect(seconds[index]! - seconds[index - 1]!, `${id} after ${seconds[index - 1]}`).toBe(1);
      }
    }
    // Neither replica exited or was restarted: the same processes did it all.
    for (const replica of replicas) expect(replica.child.exitCode ?? 0).toBe(0);
  }, 120_000);

  it('plans a changed definition again from its cursor, keeps an unchanged one, stops a disabled one (controlled clock)', async () => {
    const prefix = uniquePrefix('reload');
    const settings = settingsSchema.parse({ redis: { url: testRedisUrl(), prefix } });
    const hourly = (id: string, cron = '0 * * * *', enabled = true) =>
      exampleDefinition('snapshot', {
        id,
        enabled,
        schedule: { cron, timezone: 'UTC', overlap: 'allow' },
      });
    let now = new Date('2026-12-01T00:00:30Z');
    const clock = (): Date => now;
    const queues = new RunQueues(redis, settings);
    const scheduler = new Scheduler({
      definitions: [hourly('changes'), hourly('stays'), hourly('goes')],
      coordinator: new FireCoordinator(redis, prefix, settings.scheduler.leaseMs),
      firer: new RunFirer(
        new Outcomes(redis, prefix, undefined, clock).runs,
        new RunProducer(queues),
        silentLogger(),
        clock,
      ),
      settings: settings.scheduler,
      logger: silentLogger(),
      clock,
    });
    const fireTimes = async (id: string): Promise<string[]> =>
      (await new OutcomeQueries(redis, prefix).listRuns({ definitionId: id, limit: 100 }))
        .map((run) => run.fireTime.slice(11, 16))
        .sort();
    try {
      await scheduler.start({ tick: false });
      now = new Date('2026-12-01T01:00:00Z');
      await scheduler.tick(now);
      // 01:10: "changes" now fires every 15 minutes; "goes" is disabled.
      now = new Date('2026-12-01T01:10:00Z');
      scheduler.replaceDefinitions([
        hourly('changes', '*/15 * * * *'),
        hourly('stays'),
        hourly('goes', '0 * * * *', false),
      ]);
      await scheduler.tick(now);
      for (const minute of ['01:15', '01:30', '01:45', '02:00']) {
        now = new Date(`2026-12-01T${minute}:00Z`);
        await scheduler.tick(now);
      }
      expect(await fireTimes('changes')).toEqual(['01:00', '01:15', '01:30', '01:45', '02:00']);
      expect(await fireTimes('stays')).toEqual(['01:00', '02:00']);
      expect(await fireTimes('goes')).toEqual(['01:00']);
      expect(scheduler.nextFires().map((entry) => entry.definition.id)).toEqual([
        'changes',
        'stays',
      ]);
    } finally {
      await scheduler.stop();
      await queues.close();
    }
  });
});
