import { chmod, chown, lstat, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkDefinitions } from '../../../src/definitions/load-definitions.js';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import { journalPathOf } from '../../../src/job-kinds/rotate-secret/rotation-journal.js';
import { exampleDefinition, jobsFolder } from '../../testkit/definitions.js';
import { startProcessorHarness, type ProcessorHarness } from '../processor-harness.js';
import { authenticates, createTestAccount, secretIn } from '../../testkit/service-accounts.js';

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

/** A read-only account whose credentials file is in a new folder of the given mode. */
async function readOnlyAccountIn(folder: string, mode: number) {
  await mkdir(folder);
  await chmod(folder, mode);
  return createTestAccount(harness.platform, harness.sim, folder, 'app', 'Read Only Admin');
}

/**
 * Rotates a new account's secret into `sink`, which paw must refuse: the run fails and nothing is
 * written. Returns the reason recorded.
 */
async function refusedRotation(slug: string, sink: string): Promise<string | null | undefined> {
  const app = await createTestAccount(
    harness.platform,
    harness.sim,
    harness.dir,
    slug,
    'Read Only Admin',
  );
  worker = await harness.startWorker('rotate-secret');
  const runId = await harness.fire(rotation(`rotate-${slug}`, app.clientId, sink));
  expect((await harness.waitForRun(runId)).status).toBe('failed');
  await expect(lstat(sink)).rejects.toThrow(/ENOENT/);
  return (await harness.outcomes.items.get(runId, 'rotate'))?.errorMessage;
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

  it.each([
    {
      where: 'on another origin',
      slug: 'foreign-uri',
      answer: () => 'https://attacker.example/api/client_token',
      reported: () => 'https://attacker.example/api/client_token',
    },
    {
      // `http:host:port/...` without slashes resolves against the platform's address to
      // http://host:port/host:port/api/client_token: its origin, a path that is no endpoint.
      where: 'on its origin with an odd path',
      slug: 'odd-path',
      answer: () => `${harness.sim.baseUrl.replace('http://', 'http:')}/api/client_token`,
      reported: () =>
        `${harness.sim.baseUrl}/${new URL(harness.sim.baseUrl).host}/api/client_token`,
    },
  ])(
    "never writes an answer naming another token address ($where) into the sink: the platform's own is kept, and the answer reported",
    async ({ slug, answer, reported }) => {
      const dir = join(harness.dir, slug);
      await mkdir(dir, { mode: 0o700 });
      const app = await createTestAccount(
        harness.platform,
        harness.sim,
        dir,
        'app',
        'Read Only Admin',
      );
      worker = await harness.startWorker('rotate-secret');
      await harness.control('PUT', '/_sim/access-token-uri', { accessTokenUri: answer() });
      try {
        const runId = await harness.fire(rotation(`rotate-${slug}`, app.clientId, app.file));
        expect((await harness.waitForRun(runId)).status).toBe('succeeded');
        const written = JSON.parse(await readFile(app.file, 'utf8')) as {
          access_token_uri: string;
        };
        expect(written.access_token_uri).toBe(`${harness.sim.baseUrl}/api/client_token`);
        expect(await authenticates(harness.sim, app.file)).toBe(true);
        const item = await harness.outcomes.items.get(runId, 'rotate');
        expect(item?.details?.['refusedAccessTokenUri']).toBe(reported());
        expect(harness.logs.text()).toMatch(/named another token address/);
      } finally {
        await harness.control('PUT', '/_sim/access-token-uri', { accessTokenUri: null });
      }
    },
  );

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

  it.each([
    { who: 'everyone', mode: 0o777, problem: 'world-writable (mode 777)', writers: 'other users' },
    {
      who: 'its group',
      mode: 0o770,
      problem: 'group-writable (mode 770)',
      writers: 'the members of its group',
    },
  ])(
    'refuses, at validation and at run time, a sink folder $who can write',
    async ({ mode, problem, writers }) => {
      const folder = join(harness.dir, `writable-${mode.toString(8)}`);
      await mkdir(folder);
      await chmod(folder, mode);
      const sink = join(folder, 'sink.json');
      const jobs = await jobsFolder({
        'rotate.yaml': `id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f" }\nsink: { file: ${sink} }\n`,
      });
      const report = await checkDefinitions(jobs);
      const expected = `the sink's folder ${folder} is ${problem}: it can be written by ${writers}`;
      expect(report.problems.map((found) => found.message).join('\n')).toContain(expected);
      expect(report.problems[0]?.fix).toMatch(/chmod go-w/);
      expect(await refusedRotation(`writable-${mode.toString(8)}`, sink)).toContain(expected);
    },
  );

  it('at start-up, refuses to finish an interrupted rotation whose sink folder others can write', async () => {
    const open = join(harness.dir, 'open-recovery');
    const app = await readOnlyAccountIn(open, 0o777);
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
    const app = await readOnlyAccountIn(open, 0o777);
    const privateDir = join(harness.dir, 'private-link');
    await mkdir(privateDir, { mode: 0o700 });
    const link = join(privateDir, 'sink.json');
    await symlink(app.file, link);
    const before = await secretIn(app.file);
    worker = await harness.startWorker('rotate-secret');

    const runId = await harness.fire(rotation('rotate-link-out', app.clientId, link));
    expect((await harness.waitForRun(runId)).status).toBe('failed');
    expect((await harness.outcomes.items.get(runId, 'rotate'))?.errorMessage).toContain(
      `the sink's folder ${open} is world-writable`,
    );
    expect((await secretIn(app.file)) === before, 'the sink holds another secret').toBe(true);
  });

  it.skipIf(!ROOT)('refuses a sink folder another user owns', async () => {
    const theirs = join(harness.dir, 'other-owner');
    await mkdir(theirs, { mode: 0o755 });
    await chown(theirs, 65534, 65534);
    expect(await refusedRotation('other-owner', join(theirs, 'sink.json'))).toContain(
      `the sink's folder ${theirs} belongs to another user (uid 65534)`,
    );
  });
});
