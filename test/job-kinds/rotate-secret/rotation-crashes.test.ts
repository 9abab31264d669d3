import { stat } from 'node:fs/promises';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import { journalPathOf } from '../../../src/job-kinds/rotate-secret/rotation-journal.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { redisContents, testFleet } from '../../testkit/test-fleet.js';
import type { PawFleet } from '../../testkit/paw-fleet.js';
import { authenticates, createTestAccount, secretIn } from '../../testkit/service-accounts.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

/**
 * A rotation of paw's own secret (the hardest case: the process that rotates authenticates with
 * the secret it kills) whose worker is SIGKILLed at each step in turn; a second worker takes
 * over. Whatever the step, the sink authenticates afterwards, it is still paw's credentials
 * file, and no journal is left. Then every secret the simulator ever issued is looked for in
 * every process's output and in Redis.
 */

/** Every crash point of a rotation, in the order a rotation reaches them. */
const STEPS = [
  'rotate.after-recovery-token',
  'rotate.after-journal',
  'rotate.after-platform-call',
  'rotate.after-sink-write',
  'rotate.after-journal-update',
  'rotate.after-verify',
  'rotate.after-outcome',
  'rotate.after-journal-delete',
] as const;

let sim: SimulatorHandle;
let kit: SimulatorKit;
let admin: PlatformClient;
let redis: Redis;
let dir: string;
const fleets: PawFleet[] = [];

beforeAll(async () => {
  kit = await startSimulatorKit({ workloads: 10 }, 'rotation-crashes');
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
  await Promise.all(fleets.map((fleet) => fleet.stop()));
  await admin?.close();
  await redis?.quit();
  await kit?.close();
});

/**
 * paw runs as a fresh administrator account whose credentials file is also the sink. The first
 * worker dies at each of `crashes` in turn (one worker per entry), then a clean worker finishes.
 */
async function crashedRotation(label: string, crashes: readonly string[]) {
  const account = await createTestAccount(admin, sim, dir, label);
  const fleet = await testFleet(redis, { credentialsFile: account.file, label });
  fleets.push(fleet);
  const before = await secretIn(account.file);
  const definition = exampleDefinition('rotate-secret', {
    id: label,
    serviceAccount: { clientId: account.clientId },
    sink: { file: account.file },
  });

  let runId: string | undefined;
  for (const crashAt of crashes) {
    const worker = await fleet.start(['worker', '--kinds', 'rotate-secret'], {
      PAW_CRASH_AT: crashAt,
    });
    runId ??= await fleet.fire(definition);
    const exit = await worker.exited;
    expect(exit.signal, `the worker armed with ${crashAt} died there`).toBe('SIGKILL');
  }
  const survivor = await fleet.start(['worker', '--kinds', 'rotate-secret']);
  runId ??= await fleet.fire(definition);
  const run = await fleet.waitForRun(runId);
  await survivor.stop();
  return { account, fleet, run, runId, before };
}

// Real processes on a shared 2-core machine: generous, so load never fails a test.
describe('a rotation killed at each step', { timeout: 180_000 }, () => {
  it.concurrent.each(STEPS)(
    'leaves a sink that authenticates after a crash at %s',
    async (step) => {
      const label = `crash-${step.replace(/[^a-z]+/g, '-')}`;
      const { account, fleet, run, runId, before } = await crashedRotation(label, [step]);

      expect(run.status).toBe('succeeded');
      expect(await authenticates(sim, account.file)).toBe(true);
      expect(await secretIn(account.file)).not.toBe(before);
      expect((await stat(account.file)).mode & 0o777).toBe(0o600);
      await expect(stat(journalPathOf(account.file))).rejects.toThrow();
      const item = await fleet.outcomes.items.get(runId, 'rotate');
      expect(item?.status).toBe('succeeded');
      expect(item?.details?.['ownAccount']).toBe(true);
      if (step === 'rotate.after-platform-call') {
        // The new secret died with the process: the survivor found the dead sink and rotated again.
        expect(fleet.output()).toMatch(/the sink does not authenticate: rotating again/);
      }
    },
  );

  it('recovers when the recovery itself is killed after its own rotation', async () => {
    const { account, fleet, run } = await crashedRotation('crash-twice', [
      'rotate.after-platform-call',
      'rotate.recovery.after-platform-call',
    ]);
    expect(run.status).toBe('succeeded');
    expect(await authenticates(sim, account.file)).toBe(true);
    await expect(stat(journalPathOf(account.file))).rejects.toThrow();
    expect(fleet.output().match(/rotating again/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it('puts no secret or token in any log, job or Redis key or value', async () => {
    expect(fleets.length).toBeGreaterThanOrEqual(STEPS.length);
    const issued = Object.values(sim.issuedSecrets()).flat();
    expect(issued.length).toBeGreaterThan(20);
    for (const fleet of fleets) {
      const output = fleet.output();
      const stored = await redisContents(redis, fleet.prefix);
      expect(stored).toContain(':rotate-secret:'); // the queue's keys are there to look at
      for (const secret of issued) {
        expect(output.includes(secret), `a secret in the output of ${fleet.prefix}`).toBe(false);
        expect(stored.includes(secret), `a secret in Redis under ${fleet.prefix}`).toBe(false);
      }
    }
  });
});
