import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import { OutcomeQueries } from '../../../src/outcomes/outcome-queries.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { redisContents, testFleet } from '../../testkit/test-fleet.js';
import type { PawFleet } from '../../testkit/paw-fleet.js';
import { authenticates, createTestAccount, secretIn } from '../../testkit/service-accounts.js';
import { eventually } from '../../testkit/eventually.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

/**
 * Two paw processes run as the same account from the same credentials file: `paw start`
 * (scheduler and sla-window workers, a window every two seconds) and a `paw worker` that rotates
 * the account's secret. Tokens live 8 s, so the first process must fetch a new one after the
 * rotation: its old secret is refused, it reads the file again, and no window run fails.
 */

const TOKEN_LIFETIME_SECONDS = 8;

let sim: SimulatorHandle;
let kit: SimulatorKit;
let admin: PlatformClient;
let redis: Redis;
let dir: string;
let fleet: PawFleet | undefined;

beforeAll(async () => {
  kit = await startSimulatorKit(
    {
      workloads: 10,
      tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
    },
    'shared-credentials',
  );
  sim = kit.sim;
  dir = kit.dir;
  const adminFile = kit.credentialsFile;
  admin = await createPlatformClient({
    settings: settingsSchema.parse({ platform: { credentialsFile: adminFile } }),
    logger: captureLogs('info').logger,
  });
  redis = connectTestRedis();
});

afterAll(async () => {
  await fleet?.stop();
  await admin?.close();
  await redis?.quit();
  await kit?.close();
});

// Real processes on a shared 2-core machine: generous, so load never fails a test.
describe('another paw process sharing the rotated credentials file', { timeout: 180_000 }, () => {
  it('keeps working across the rotation, picking the new secret up from the file', async () => {
    const account = await createTestAccount(admin, sim, dir, 'shared');
    const domain = await admin.rest.slaDomains.create({
      name: `shared-${Math.random().toString(36).slice(2, 8)}`,
      objectTypes: ['VSPHERE_VM'],
      frequency: { unit: 'DAILY', interval: 1 },
      retention: { unit: 'DAYS', duration: 7 },
    });
    const cluster = sim.clusters.find((c) => c.connectionState === 'Connected')?.id ?? '';
    const jobs = await mkdtemp(join(dir, 'jobs-'));
    await writeFile(
      join(jobs, 'window.yaml'),
      `id: every-two-seconds\nkind: sla-window\nschedule: { cron: '*/2 * * * * *', allowSubMinute: true, duration: 1s }\n` +
        `slaDomains: { ids: ['${domain.id}'], clusterIds: ['${cluster}'] }\n`,
    );
    fleet = await testFleet(redis, {
      credentialsFile: account.file,
      label: 'shared',
      env: { PAW_ROTATION_MIN_RECOVERY_TOKEN_SECONDS: '5' },
    });
    const windows = await fleet.start(['start', '--jobs', jobs, '--kinds', 'sla-window']);
    await fleet.start(['worker', '--kinds', 'rotate-secret']);
    const queries = new OutcomeQueries(redis, fleet.prefix);
    const succeeded = async () =>
      (await queries.listRuns({ definitionId: 'every-two-seconds' })).filter(
        (run) => run.status === 'succeeded',
      ).length;
    await eventually('two windows before the rotation', async () => (await succeeded()) >= 2);

    const before = await secretIn(account.file);
    const rotation = await fleet.fire(
      exampleDefinition('rotate-secret', {
        id: 'rotate-shared',
        serviceAccount: { clientId: account.clientId },
        sink: { file: account.file },
      }),
    );
    expect((await fleet.waitForRun(rotation)).status).toBe('succeeded');
    expect(await secretIn(account.file)).not.toBe(before);
    const afterRotation = await succeeded();

    // The windows process's token (issued with the old secret) expires; its next token request
    // is refused, it reads the file again and carries on.
    await windows.waitForStderr(/using the rotated secret found in the credentials file/, 60_000);
    await eventually(
      'two more windows after the switch',
      async () => (await succeeded()) >= afterRotation + 2,
    );
    await fleet.stop();

    // No window failed for its credentials. A one-second window whose pause a loaded machine
    // runs after its resume began ends its item WINDOW_ENDED, as paw must; that is not this
    // test's subject, so it is the one failure let through.
    const failedItems: string[] = [];
    for await (const item of queries.items({
      definitionId: 'every-two-seconds',
      statuses: ['failed'],
    })) {
      if (item.errorCode !== 'WINDOW_ENDED') failedItems.push(JSON.stringify(item));
    }
    expect(failedItems).toEqual([]);
    expect(await authenticates(sim, account.file)).toBe(true);
    const issued = Object.values(sim.issuedSecrets()).flat();
    const output = fleet.output();
    const stored = await redisContents(redis, fleet.prefix);
    for (const secret of issued) {
      expect(output.includes(secret)).toBe(false);
      expect(stored.includes(secret)).toBe(false);
    }
  });
});
