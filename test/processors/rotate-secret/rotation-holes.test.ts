import { chmod, chown, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkDefinitions } from '../../../src/definitions/load-definitions.js';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import { journalPathOf } from '../../../src/processors/rotate-secret/rotation-journal.js';
import { exampleDefinition, jobsFolder } from '../../support/definitions.js';
import { startProcessorHarness, type ProcessorHarness } from '../support/processor-harness.js';
import { authenticates, createTestAccount, secretIn } from './support/service-accounts.js';

/** Runs paw's tests as root (as CI does): only then can a test give a folder to another user. */
const ROOT = process.getuid?.() === 0;

let harness: ProcessorHarness;
let worker: Worker | undefined;

beforeAll(async () => {
  harness = await startProcessorHarness({ label: 'rotation-holes' });
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

/** What an attacker or an accident could do to a rotation, and what paw does instead. */
describe('rotation holes', () => {
  it("writes through a sink that is a symlink to paw's own credentials file: paw's file holds the working secret", async () => {
    const dir = join(harness.dir, 'own-link');
    await mkdir(dir, { mode: 0o700 });
    const own = await createTestAccount(harness.platform, harness.sim, dir, 'own');
    const link = join(dir, 'sink-link.json');
    await symlink(own.file, link);
    const dependencies = await harness.dependenciesFor(own.file);
    worker = await harness.startWorker('rotate-secret', dependencies);
    const before = await secretIn(own.file);

    const runId = await harness.fire(rotation('rotate-own-link', own.clientId, link));
    expect((await harness.waitForRun(runId)).status).toBe('succeeded');

    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await secretIn(own.file)).not.toBe(before);
    expect(await authenticates(harness.sim, own.file)).toBe(true);
    // paw's running client switched to it: its next token works.
    const token = await dependencies.platform.accessTokens.issue(
      dependencies.platform.credentials.current(),
    );
    expect(token.clientId).toBe(own.clientId);
  });

  it('never writes an answer naming another token address into the sink: the trusted one is kept, and the answer reported', async () => {
    const dir = join(harness.dir, 'foreign-uri');
    await mkdir(dir, { mode: 0o700 });
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      dir,
      'app',
      'Read Only Admin',
    );
    worker = await harness.startWorker('rotate-secret');
    await harness.simControl('PUT', '/_sim/access-token-uri', {
      accessTokenUri: 'https://attacker.example/api/client_token',
    });
    try {
      const runId = await harness.fire(rotation('rotate-foreign-uri', app.clientId, app.file));
      expect((await harness.waitForRun(runId)).status).toBe('succeeded');
      const written = JSON.parse(await readFile(app.file, 'utf8')) as { access_token_uri: string };
      expect(written.access_token_uri).toBe(`${harness.sim.baseUrl}/api/client_token`);
      expect(await authenticates(harness.sim, app.file)).toBe(true);
      const item = await harness.outcomes.getItem(runId, 'rotate');
      expect(item?.details?.['refusedAccessTokenUri']).toBe(
        'https://attacker.example/api/client_token',
      );
      expect(harness.logs.text()).toMatch(/named another token address/);
    } finally {
      await harness.simControl('PUT', '/_sim/access-token-uri', { accessTokenUri: null });
    }
  });

  it('ignores, with a warning, a journal planted beside the sink that names another sink or account', async () => {
    const dir = join(harness.dir, 'planted');
    await mkdir(dir, { mode: 0o700 });
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      dir,
      'app',
      'Read Only Admin',
    );
    const loot = join(dir, 'loot.json');
    await writeFile(
      journalPathOf(app.file),
      JSON.stringify({
        version: 1,
        runId: 'planted',
        clientId: app.clientId,
        sink: loot,
        phase: 'rotating',
        startedAt: new Date().toISOString(),
        updatedAt: new Date().toISOString(),
      }),
      { mode: 0o600 },
    );
    worker = await harness.startWorker('rotate-secret');
    const runId = await harness.fire(rotation('rotate-planted', app.clientId, app.file));
    expect((await harness.waitForRun(runId)).status).toBe('succeeded');
    await expect(lstat(loot)).rejects.toThrow(/ENOENT/);
    expect(await authenticates(harness.sim, app.file)).toBe(true);
    expect(harness.logs.text()).toMatch(
      /journal beside .* does not belong to this rotation; ignored/,
    );
  });

  it('refuses, at validation and at run time, a sink folder others can write', async () => {
    const open = join(harness.dir, 'world-writable');
    await mkdir(open);
    await chmod(open, 0o777);
    const jobs = await jobsFolder({
      'rotate.yaml': `id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f" }\nsink: { file: ${join(open, 'sink.json')} }\n`,
    });
    const report = await checkDefinitions(jobs);
    expect(report.problems.map((problem) => problem.message).join('\n')).toMatch(
      /folder .*world-writable.* can be written by other users/,
    );
    expect(report.problems[0]?.fix).toMatch(/chmod go-w/);

    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      harness.dir,
      'app2',
      'Read Only Admin',
    );
    worker = await harness.startWorker('rotate-secret');
    const runId = await harness.fire(
      rotation('rotate-open-folder', app.clientId, join(open, 'sink.json')),
    );
    const run = await harness.waitForRun(runId);
    expect(run.status).toBe('failed');
    expect((await harness.outcomes.getItem(runId, 'rotate'))?.errorMessage).toMatch(
      /can be written by other users/,
    );
    await expect(lstat(join(open, 'sink.json'))).rejects.toThrow(/ENOENT/);
  });

  it('at start-up, refuses to finish an interrupted rotation whose sink folder others can write', async () => {
    const open = join(harness.dir, 'open-recovery');
    await mkdir(open);
    await chmod(open, 0o777);
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      open,
      'app',
      'Read Only Admin',
    );
    // What a crash after rotateServiceAccountSecret leaves: a journal, the sink in Redis, and a
    // sink whose secret the platform now refuses (so recovery would rotate and write again).
    const now = new Date().toISOString();
    await writeFile(
      journalPathOf(app.file),
      JSON.stringify({
        version: 1,
        runId: 'rotate-open@20250101T030000Z',
        clientId: app.clientId,
        sink: app.file,
        phase: 'rotating',
        startedAt: now,
        updatedAt: now,
      }),
      { mode: 0o600 },
    );
    await harness.redis.hset(
      `${harness.settings.redis.prefix}:rotate-secret:journals`,
      app.file,
      app.clientId,
    );
    await harness.platform.graphql.serviceAccounts.rotateSecret(app.clientId);
    const before = await secretIn(app.file);

    await harness.processor('rotate-secret').recover?.(new AbortController().signal);

    expect((await secretIn(app.file)) === before, 'the sink holds another secret').toBe(true);
    const failure = harness.logs
      .records()
      .find((record) => record['msg'] === 'could not finish an interrupted rotation at start-up');
    expect(failure?.['err'], harness.logs.text()).toContain(
      `the sink's folder ${open} is world-writable`,
    );
  });

  it("refuses a sink that is a link into a folder others can write: the check is of the target's folder", async () => {
    const open = join(harness.dir, 'open-target');
    await mkdir(open);
    await chmod(open, 0o777);
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      open,
      'app',
      'Read Only Admin',
    );
    const privateDir = join(harness.dir, 'private-link');
    await mkdir(privateDir, { mode: 0o700 });
    const link = join(privateDir, 'sink.json');
    await symlink(app.file, link);
    const before = await secretIn(app.file);
    worker = await harness.startWorker('rotate-secret');

    const runId = await harness.fire(rotation('rotate-link-out', app.clientId, link));
    expect((await harness.waitForRun(runId)).status).toBe('failed');
    expect((await harness.outcomes.getItem(runId, 'rotate'))?.errorMessage).toContain(
      `the sink's folder ${open} is world-writable`,
    );
    expect((await secretIn(app.file)) === before, 'the sink holds another secret').toBe(true);
  });

  it('refuses a sink folder its group can write, at validation and at run time', async () => {
    const shared = join(harness.dir, 'group-writable');
    await mkdir(shared);
    await chmod(shared, 0o770);
    const sink = join(shared, 'sink.json');
    const jobs = await jobsFolder({
      'rotate.yaml': `id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f" }\nsink: { file: ${sink} }\n`,
    });
    const report = await checkDefinitions(jobs);
    expect(report.problems.map((problem) => problem.message).join('\n')).toContain(
      `the sink's folder ${shared} is group-writable (mode 770)`,
    );
    expect(report.problems[0]?.fix).toMatch(/chmod go-w/);

    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      harness.dir,
      'app-g',
      'Read Only Admin',
    );
    worker = await harness.startWorker('rotate-secret');
    const runId = await harness.fire(rotation('rotate-group', app.clientId, sink));
    expect((await harness.waitForRun(runId)).status).toBe('failed');
    await expect(lstat(sink)).rejects.toThrow(/ENOENT/);
  });

  it.skipIf(!ROOT)('refuses a sink folder another user owns', async () => {
    const theirs = join(harness.dir, 'other-owner');
    await mkdir(theirs, { mode: 0o755 });
    await chown(theirs, 65534, 65534);
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      harness.dir,
      'app-o',
      'Read Only Admin',
    );
    worker = await harness.startWorker('rotate-secret');
    const runId = await harness.fire(
      rotation('rotate-other-owner', app.clientId, join(theirs, 'sink.json')),
    );
    expect((await harness.waitForRun(runId)).status).toBe('failed');
    expect((await harness.outcomes.getItem(runId, 'rotate'))?.errorMessage).toContain(
      `the sink's folder ${theirs} belongs to another user (uid 65534)`,
    );
    await expect(lstat(join(theirs, 'sink.json'))).rejects.toThrow(/ENOENT/);
  });

  it("stores the platform's own token address when the answer names one on its origin with an odd path", async () => {
    const dir = join(harness.dir, 'odd-path');
    await mkdir(dir, { mode: 0o700 });
    const app = await createTestAccount(
      harness.platform,
      harness.sim,
      dir,
      'app',
      'Read Only Admin',
    );
    worker = await harness.startWorker('rotate-secret');
    // `http:host:port/...` without slashes resolves against the platform's address to
    // http://host:port/host:port/api/client_token: the same origin, a path that is no endpoint.
    const odd = harness.sim.baseUrl.replace('http://', 'http:') + '/api/client_token';
    await harness.simControl('PUT', '/_sim/access-token-uri', { accessTokenUri: odd });
    try {
      const runId = await harness.fire(rotation('rotate-odd-path', app.clientId, app.file));
      expect((await harness.waitForRun(runId)).status).toBe('succeeded');
      const written = JSON.parse(await readFile(app.file, 'utf8')) as { access_token_uri: string };
      expect(written.access_token_uri).toBe(`${harness.sim.baseUrl}/api/client_token`);
      expect(await authenticates(harness.sim, app.file)).toBe(true);
      const item = await harness.outcomes.getItem(runId, 'rotate');
      expect(item?.details?.['refusedAccessTokenUri']).toBe(
        `${harness.sim.baseUrl}/${new URL(harness.sim.baseUrl).host}/api/client_token`,
      );
    } finally {
      await harness.simControl('PUT', '/_sim/access-token-uri', { accessTokenUri: null });
    }
  });
});
