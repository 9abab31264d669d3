import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import {
  journalPathOf,
  readJournal,
  writeJournal,
} from '../../../src/job-kinds/rotate-secret/rotation-journal.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { startProcessorHarness, type ProcessorHarness } from '../processor-harness.js';
import { authenticates, createTestAccount, secretIn } from '../../testkit/service-accounts.js';

let harness: ProcessorHarness;
let dir: string;
let worker: Worker | undefined;

beforeAll(async () => {
  harness = await startProcessorHarness({ label: 'rotation' });
  dir = await mkdtemp(join(harness.dir, 'sinks-'));
});

afterEach(async () => {
  await worker?.close();
  worker = undefined;
});

afterAll(async () => {
  await harness?.close();
});

function rotation(id: string, clientId: string, sink: string): JobDefinition {
  return exampleDefinition('rotate-secret', {
    id,
    serviceAccount: { clientId },
    sink: { file: sink },
  });
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}

describe('rotate-secret', () => {
  it("rotates another account's secret into a 0600 sink and records the outcome", async () => {
    worker = await harness.startWorker('rotate-secret');
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      dir,
      'app',
      'Read Only Admin',
    );
    const before = await secretIn(app.file);

    const runId = await harness.fire(rotation('rotate-app', app.clientId, app.file));
    const run = await harness.waitForRun(runId);

    expect(run.status).toBe('succeeded');
    expect(await authenticates(harness.sim, app.file)).toBe(true);
    expect(await secretIn(app.file)).not.toBe(before);
    expect((await stat(app.file)).mode & 0o777).toBe(0o600);
    const file = JSON.parse(await readFile(app.file, 'utf8')) as Record<string, string>;
    expect(Object.keys(file).sort()).toEqual([
      'access_token_uri',
      'client_id',
      'client_secret',
      'name',
    ]);
    expect(file['access_token_uri']).toBe(`${harness.sim.baseUrl}/api/client_token`);
    expect(await exists(journalPathOf(app.file))).toBe(false);
    const item = await harness.outcomes.items.get(runId, 'rotate');
    expect(item).toMatchObject({
      status: 'succeeded',
      target: app.clientId,
      action: 'rotate',
      details: { sink: app.file, ownAccount: false, rotations: 1 },
    });
    // paw's own credentials are untouched and still work.
    expect(await authenticates(harness.sim, harness.credentialsFile)).toBe(true);
  });

  it("rotates paw's own secret into its credentials file and switches to it at once", async () => {
    const own = await createTestAccount(harness.platform, harness.sim, dir, 'own');
    const dependencies = await harness.dependenciesFor(own.file);
    worker = await harness.startWorker('rotate-secret', dependencies);
    const before = await secretIn(own.file);

    const runId = await harness.fire(rotation('rotate-own', own.clientId, own.file));
    const run = await harness.waitForRun(runId);

    expect(run.status).toBe('succeeded');
    const after = await secretIn(own.file);
    expect(after).not.toBe(before);
    expect(await authenticates(harness.sim, own.file)).toBe(true);
    // The running client uses the new secret for its next token, without a refused request.
    expect(dependencies.platform.credentials.current().clientSecret.reveal()).toBe(after);
    const fresh = await dependencies.platform.accessTokens.issue(
      dependencies.platform.credentials.current(),
    );
    expect(fresh.clientId).toBe(own.clientId);
    expect(await harness.outcomes.items.get(runId, 'rotate')).toMatchObject({
      status: 'succeeded',
      details: { ownAccount: true },
    });
    expect(await exists(journalPathOf(own.file))).toBe(false);
  });

  it("refuses to rotate paw's own account into any file but its credentials file", async () => {
    const own = await createTestAccount(harness.platform, harness.sim, dir, 'own-elsewhere');
    worker = await harness.startWorker('rotate-secret', await harness.dependenciesFor(own.file));
    const elsewhere = join(dir, 'elsewhere.json');
    const runId = await harness.fire(rotation('rotate-own-elsewhere', own.clientId, elsewhere));
    const run = await harness.waitForRun(runId);

    expect(run.status).toBe('failed');
    const item = await harness.outcomes.items.get(runId, 'rotate');
    expect(item?.errorMessage).toMatch(
      /the account paw itself runs as.*not paw's credentials file/,
    );
    expect(await authenticates(harness.sim, own.file)).toBe(true);
    expect(await exists(elsewhere)).toBe(false);
  });

  it("never overwrites a sink that holds another account's credentials", async () => {
    worker = await harness.startWorker('rotate-secret');
    const app = await createTestAccount(harness.platform, harness.sim, dir, 'victim-app');
    const other = await createTestAccount(harness.platform, harness.sim, dir, 'victim-other');
    const runId = await harness.fire(rotation('rotate-wrong-sink', app.clientId, other.file));
    const run = await harness.waitForRun(runId);

    expect(run.status).toBe('failed');
    expect((await harness.outcomes.items.get(runId, 'rotate'))?.errorMessage).toMatch(
      /holds the credentials of .* not /,
    );
    expect(await authenticates(harness.sim, app.file)).toBe(true);
    expect(await authenticates(harness.sim, other.file)).toBe(true);
  });

  it('leaves no journal and an untouched sink when the platform refuses the rotation', async () => {
    const readOnly = await createTestAccount(
      harness.platform,
      harness.sim,
      dir,
      'read-only',
      'Read Only Admin',
    );
    worker = await harness.startWorker(
      'rotate-secret',
      await harness.dependenciesFor(readOnly.file),
    );
    const app = await createTestAccount(harness.platform, harness.sim, dir, 'refused-app');
    const before = await secretIn(app.file);
    const runId = await harness.fire(rotation('rotate-refused', app.clientId, app.file));
    const run = await harness.waitForRun(runId);

    expect(run.status).toBe('failed');
    expect((await harness.outcomes.items.get(runId, 'rotate'))?.errorCode).toBe('403');
    expect(await secretIn(app.file)).toBe(before);
    expect(await authenticates(harness.sim, app.file)).toBe(true);
    expect(await exists(journalPathOf(app.file))).toBe(false);
  });

  it('repairs on the retry when the new secret cannot be proven at first', async () => {
    worker = await harness.startWorker('rotate-secret');
    const app = await createTestAccount(harness.platform, harness.sim, dir, 'unproven');
    // paw's own token is cached: the next token requests are the proof of the new secret.
    await harness.control('PUT', '/_sim/faults', {
      operations: { createClientToken: { errorRate: 1, errorStatuses: [503], times: 3 } },
    });
    const runId = await harness.fire(rotation('rotate-unproven', app.clientId, app.file));
    const run = await harness.waitForRun(runId);
    await harness.control('PUT', '/_sim/faults', { operations: {} });

    expect(run.status).toBe('succeeded');
    expect(run.attempts).toBe(2);
    expect(await authenticates(harness.sim, app.file)).toBe(true);
    expect(await harness.outcomes.items.get(runId, 'rotate')).toMatchObject({
      status: 'succeeded',
      details: { rotations: 0, recoveredInterruptedRotation: true },
    });
    expect(await exists(journalPathOf(app.file))).toBe(false);
    expect(harness.logs.text()).toMatch(/rotated but not yet stored and proven/);
  });

  it('finishes at start-up a rotation whose new secret was lost, with the recovery token', async () => {
    // The state a crash right after rotateServiceAccountSecret leaves: the journal says
    // `rotating`, holds a recovery token, and the sink holds a secret the platform now refuses.
    const own = await createTestAccount(harness.platform, harness.sim, dir, 'lost');
    const dependencies = await harness.dependenciesFor(own.file);
    const recoveryToken = await dependencies.platform.accessTokens.issue(
      dependencies.platform.credentials.current(),
    );
    const now = new Date().toISOString();
    await writeJournal({
      runId: 'rotate-lost@20250101T030000Z',
      clientId: own.clientId,
      sink: own.file,
      phase: 'rotating',
      startedAt: now,
      updatedAt: now,
      recoveryToken: recoveryToken.value,
      recoveryTokenExpiresAt: new Date(recoveryToken.expiresAt).toISOString(),
    });
    await dependencies.redis.hset(
      `${harness.settings.redis.prefix}:rotate-secret:journals`,
      own.file,
      own.clientId,
    );
    await harness.platform.graphql.serviceAccounts.rotateSecret(own.clientId); // the lost secret
    expect(await authenticates(harness.sim, own.file)).toBe(false);

    const processor = harness.processor('rotate-secret', dependencies);
    await processor.recover?.(new AbortController().signal);

    expect(await authenticates(harness.sim, own.file)).toBe(true);
    expect(await readJournal(own.file, own, harness.logs.logger)).toBeUndefined();
    expect(dependencies.platform.credentials.current().clientSecret.reveal()).toBe(
      await secretIn(own.file),
    );
  });

  it('keeps a journal it cannot read and says how to fix it, without printing it', async () => {
    const app = await createTestAccount(harness.platform, harness.sim, dir, 'garbled');
    await writeFile(journalPathOf(app.file), '{"recoveryToken":"tok-should-not-leak"');
    const failure = await readJournal(app.file, app, harness.logs.logger).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toMatch(/not a rotation journal paw can read/);
    expect(String(failure)).not.toContain('tok-should-not-leak');
  });
});
