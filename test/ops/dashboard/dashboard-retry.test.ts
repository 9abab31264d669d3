import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../src/config/settings-schema.js';
import { silentLogger } from '../../../src/shared/logger.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import { RunQueues } from '../../../src/queue/run-queues.js';
import { hashPassword } from '../../../src/ops/auth/password-hash.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { OperatorActions } from '../../../src/outcomes/operator-actions.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { RunRetry } from '../../../src/scheduler/run-retry.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { opsSettings } from '../ops-settings.js';
import { recordRun } from '../recorded-runs.js';

const TOKEN = 'retry-token-5d8e2f1a9c3b7e60';
const PASSWORD = 'bob-password-8c1e4f2a';
const DEFINITIONS = [
  exampleDefinition('snapshot', { id: 'nightly-vms' }),
  exampleDefinition('sla-window', { id: 'saturday-window' }),
];

/** A failed snapshot run: two workloads to retry (failed, timed out), one that succeeded. */
async function recordFailedRun(redis: ReturnType<typeof connectTestRedis>, prefix: string) {
  const runId = 'nightly-vms@20250105T010000Z';
  await recordRun(redis, prefix, {
    runId,
    definitionId: 'nightly-vms',
    fireTime: new Date('2025-01-05T01:00:00Z'),
    items: [
      { key: 'vm-a', target: 'vm-a', status: 'succeeded' },
      { key: 'vm-b', target: 'vm-b', status: 'failed', errorCode: 'SNAPSHOT_FAILED' },
      { key: 'vm-c', target: 'vm-c', status: 'timed-out' },
    ],
  });
  return runId;
}

async function startServer(
  settings: Settings,
  logger: ReturnType<typeof captureLogs>['logger'],
  withDefinitions: boolean,
): Promise<OpsServer> {
  const started = await startOpsServer({
    settings,
    logger,
    role: withDefinitions ? 'scheduler' : 'worker',
    version: 'test',
    metrics: new PawMetrics({ processMetrics: false }),
    ...(withDefinitions ? { definitions: DEFINITIONS } : {}),
    port: 0,
  });
  if (started === undefined) throw new Error('no ops server');
  return started;
}

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return {
    status: response.statusCode,
    json: (await response.body.json()) as Record<string, unknown>,
  };
}

/**
 * The dashboard's retry (POST /api/runs/<id>/retry) follows the ops server's rules for changes:
 * who may (credentials, same origin), write mode, a process that has the definitions; and it is
 * recorded like every other action.
 */
describe("the dashboard's retry over HTTP", () => {
  const logs = captureLogs('info');
  const redis = connectTestRedis();
  let dir: string;
  let settings: Settings;
  let server: OpsServer;
  let failedRun: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-retry-route-'));
    await writeFile(join(dir, 'tokens'), `${TOKEN}\n`, { mode: 0o600 });
    await writeFile(join(dir, 'users'), `bob:${await hashPassword(PASSWORD)}\n`, { mode: 0o600 });
    settings = await opsSettings('retry-route', {
      PAW_OPS_TOKEN_FILE: join(dir, 'tokens'),
      PAW_OPS_USERS_FILE: join(dir, 'users'),
      PAW_HTTP_QUEUES_READ_ONLY: 'false',
    });
    failedRun = await recordFailedRun(redis, settings.redis.prefix);
    server = await startServer(settings, logs.logger, true);
  });
  afterAll(async () => {
    await server?.close();
    redis.disconnect();
    await rm(dir, { recursive: true, force: true });
  });

  const retryUrl = (runId: string) => `${server.url}/api/runs/${encodeURIComponent(runId)}/retry`;
  const basic = `Basic ${Buffer.from(`bob:${PASSWORD}`).toString('base64')}`;
  const bearer = { authorization: `Bearer ${TOKEN}` };

  it('asks who you are and refuses a request from another origin', async () => {
    expect((await post(retryUrl(failedRun), { reason: 'x' }, {})).status).toBe(401);
    const crossSite = await post(
      retryUrl(failedRun),
      { reason: 'x' },
      { authorization: basic, origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    // A browser's request without Origin and basic auth could be forged: refused too.
    expect(
      (await post(retryUrl(failedRun), { reason: 'x' }, { authorization: basic })).status,
    ).toBe(403);
    // Nothing was retried.
    expect(await redis.exists(`${settings.redis.prefix}:ops:retries:${failedRun}`)).toBe(0);
  });

  it('retries once from the same origin, says why it cannot, and records each call', async () => {
    const fromPage = { authorization: basic, origin: server.url };
    const noReason = await post(retryUrl(failedRun), { reason: '  ' }, fromPage);
    expect(noReason.status).toBe(400);

    const first = await post(retryUrl(failedRun), { reason: 'cluster-b is back' }, fromPage);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({
      outcome: 'started',
      retryOf: failedRun,
      workloads: 2,
      status: 'queued',
      runId: expect.stringMatching(/^nightly-vms@\d{8}T\d{6}\.\d{3}Z-manual$/) as unknown,
    });
    const again = await post(retryUrl(failedRun), { reason: 'double click' }, bearer);
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ outcome: 'exists', runId: first.json['runId'] });

    // Only the timed-out one: another set of statuses is another retry.
    const timedOut = await post(
      retryUrl(failedRun),
      { reason: 'only the slow one', statuses: ['timed-out'] },
      bearer,
    );
    expect(timedOut.json).toMatchObject({ outcome: 'started', workloads: 1 });
    expect(timedOut.json['runId']).not.toBe(first.json['runId']);

    const unknown = await post(retryUrl('nightly-vms@20200101T000000Z'), { reason: 'x' }, bearer);
    expect(unknown.status).toBe(404);
    // The retry run itself is still queued (no worker here): not yet.
    const active = await post(retryUrl(String(first.json['runId'])), { reason: 'x' }, bearer);
    expect(active.status).toBe(409);
    expect(active.json['error']).toMatch(/is still queued: retry it once it has ended/);
    await recordRun(redis, settings.redis.prefix, {
      runId: 'saturday-window@20250104T220000Z',
      definitionId: 'saturday-window',
      kind: 'sla-window',
      items: [{ key: 'gold/c1/pause', status: 'failed' }],
    });
    const window = await post(
      retryUrl('saturday-window@20250104T220000Z'),
      { reason: 'x' },
      bearer,
    );
    expect(window.status).toBe(409);
    expect(window.json['error']).toMatch(/one unit: run it again with paw run saturday-window/);
    const badStatus = await post(retryUrl(failedRun), { reason: 'x', statuses: ['bogus'] }, bearer);
    expect(badStatus.status).toBe(400);

    const actions = (await (
      await request(`${server.url}/api/actions`, { headers: bearer })
    ).body.json()) as Record<string, string>[];
    const retries = actions.filter((action) => action.action === 'retry run').reverse();
    expect(retries.map((action) => [action.user, action.outcome, action.reason])).toEqual([
      ['bob', 'refused', undefined], // no reason
      ['bob', 'done', 'cluster-b is back'],
      ['bearer token', 'no change', 'double click'],
      ['bearer token', 'done', 'only the slow one'],
      ['bearer token', 'refused', 'x'], // unknown
      ['bearer token', 'refused', 'x'], // active
      ['bearer token', 'refused', 'x'], // a window
      ['bearer token', 'refused', 'x'], // a bad status
    ]);
    expect(retries[1]).toMatchObject({
      via: 'basic',
      target: failedRun,
      detail: `started ${String(first.json['runId'])} over 2 workload(s)`,
    });
  });

  it('is refused in read-only mode and where no definitions are loaded, and the page says how else', async () => {
    const readOnly = await opsSettings('retry-read-only');
    const readOnlyRun = await recordFailedRun(redis, readOnly.redis.prefix);
    const readOnlyServer = await startServer(readOnly, logs.logger, true);
    const workerSettings = await opsSettings('retry-worker', {
      PAW_HTTP_QUEUES_READ_ONLY: 'false',
    });
    const workerRun = await recordFailedRun(redis, workerSettings.redis.prefix);
    const workerServer = await startServer(workerSettings, logs.logger, false);
    try {
      const url = (base: string, runId: string) =>
        `${base}/api/runs/${encodeURIComponent(runId)}/retry`;
      const refused = await post(url(readOnlyServer.url, readOnlyRun), { reason: 'x' }, {});
      expect(refused.status).toBe(403);
      expect(refused.json['error']).toMatch(/read-only \(http\.queuesReadOnly\)/);
      const page = await (await request(`${readOnlyServer.url}/`)).body.text();
      expect(page).not.toContain('<form class="retry"');
      expect(page).toContain(`paw retry ${readOnlyRun}`);
      const actions = new OperatorActions(redis, readOnly.redis.prefix, silentLogger());
      expect((await actions.list())[0]).toMatchObject({
        action: 'retry run',
        outcome: 'refused',
        user: 'anonymous',
      });

      const noDefinitions = await post(url(workerServer.url, workerRun), { reason: 'x' }, {});
      expect(noDefinitions.status).toBe(409);
      expect(noDefinitions.json['error']).toMatch(/loaded no job definitions/);
      expect(await (await request(`${workerServer.url}/`)).body.text()).toContain(
        `paw retry ${workerRun}`,
      );
    } finally {
      await readOnlyServer.close();
      await workerServer.close();
    }
  });
});

describe('RunRetry (the one home of paw retry and the dashboard retry)', () => {
  const redis = connectTestRedis();
  afterAll(() => redis.disconnect());

  it('finishes a retry whose first caller died after its claim, under the same run id', async () => {
    const settings = await opsSettings('retry-crash');
    const prefix = settings.redis.prefix;
    const runId = await recordFailedRun(redis, prefix);
    const actions = new OperatorActions(redis, prefix, silentLogger());
    const request = { runId, by: 'carol', via: 'cli' as const, reason: 'back' };

    // The first caller loses its queue connection after its claim: the run's record and its job
    // are one step (createRunAndAddJob), so neither is there, only the claim.
    const lost = connectTestRedis();
    const deadQueues = new RunQueues(lost, settings);
    await deadQueues.queue('snapshot').waitUntilReady();
    lost.disconnect();
    const dying = new RunRetry(
      new Outcomes(redis, prefix),
      redis,
      prefix,
      deadQueues,
      actions,
      3600,
    );
    await expect(dying.retry(DEFINITIONS, request)).rejects.toThrow();
    await deadQueues.close().catch(() => undefined);
    const store = new Outcomes(redis, prefix);
    const manualRuns = async () =>
      (await redis.zrange(`${prefix}:outcomes:runs:def:nightly-vms`, '0', '-1')).filter((id) =>
        id.endsWith('-manual'),
      );
    expect(await manualRuns()).toEqual([]);
    const claims = Object.values(await redis.hgetall(`${prefix}:ops:retries:${runId}`));
    const claimed = (JSON.parse(claims[0] ?? '{}') as { runId?: string }).runId;
    expect(claimed).toMatch(/-manual$/);

    const queues = new RunQueues(redis, settings);
    try {
      const result = await new RunRetry(
        new Outcomes(redis, prefix),
        redis,
        prefix,
        queues,
        actions,
        3600,
      ).retry(DEFINITIONS, request);
      expect(result.outcome).toBe('started');
      const retryRunId = result.runId ?? '';
      expect(retryRunId).toBe(claimed);
      expect(await store.runs.get(retryRunId)).toMatchObject({ status: 'queued' });
      const queue = new Queue('snapshot', { connection: redis, prefix });
      try {
        // The run the first caller never fired is there now, over the same two workloads.
        const job = await queue.getJob(retryRunId);
        expect(job?.data).toMatchObject({ definition: { targets: { ids: ['vm-b', 'vm-c'] } } });
      } finally {
        await queue.close();
      }
      expect(await manualRuns()).toEqual([retryRunId]);
    } finally {
      await queues.close();
    }
  });
});
