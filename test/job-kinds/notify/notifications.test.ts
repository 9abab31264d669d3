import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { lookup } from 'node:dns/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../src/config/settings-schema.js';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import { Shutdown } from '../../../src/shared/shutdown.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { NOTIFY_QUEUE_NAME } from '../../../src/queue/notifications/notification-queue.js';
import {
  startNotificationService,
  type NotificationService,
} from '../../../src/job-kinds/notify/notification-service.js';
import { WebhookSender } from '../../../src/job-kinds/notify/webhook-sender.js';
import { internalAddressKind } from '../../../src/shared/internal-address.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import { RunProducer } from '../../../src/queue/run-producer.js';
import { RunQueues } from '../../../src/queue/run-queues.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { parsePrometheusText, sumOf } from '../../testkit/prometheus-text.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { opsSettings } from '../../ops/ops-settings.js';
import { recordRun } from '../../ops/recorded-runs.js';
import { WebhookReceiver } from '../../ops/webhook-receiver.js';

const TOKEN = 'XOXB-secret-hook-token-7f3a9c';

/** Every value under `prefix`, as text, to look for secrets in. */
async function dumpRedis(
  redis: ReturnType<typeof connectTestRedis>,
  prefix: string,
): Promise<string> {
  const keys = await redis.keys(`${prefix}*`);
  const parts: string[] = [];
  for (const key of keys) {
    const type = await redis.type(key);
    if (type === 'string') parts.push(String(await redis.get(key)));
    else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
    else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
    else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, '0', '-1')));
    else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    parts.push(key);
  }
  return parts.join('\n');
}

describe('webhook notifications', () => {
  const redis = connectTestRedis();
  let receiver: WebhookReceiver;
  let dir: string;
  const shutdowns: Shutdown[] = [];

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    dir = await mkdtemp(join(tmpdir(), 'paw-notify-'));
  });
  afterEach(async () => {
    await Promise.all(shutdowns.splice(0).map((shutdown) => shutdown.run('test over')));
  });
  afterAll(async () => {
    await receiver.stop();
    redis.disconnect();
    await rm(dir, { recursive: true, force: true });
  });

  async function start(
    label: string,
    definitions: readonly JobDefinition[],
  ): Promise<{
    settings: Settings;
    service: NotificationService;
    metrics: PawMetrics;
    logs: ReturnType<typeof captureLogs>;
  }> {
    const loaded = await opsSettings(label, { PAW_NOTIFY_ATTEMPTS: '4' });
    // Fast retries for the test; the defaults wait seconds to minutes.
    const settings: Settings = {
      ...loaded,
      notifications: { ...loaded.notifications, backoffBaseMs: 50, backoffMaxMs: 200 },
    };
    const logs = captureLogs('debug');
    const shutdown = new Shutdown({ logger: logs.logger });
    shutdowns.push(shutdown);
    const metrics = new PawMetrics({ processMetrics: false });
    const service = await startNotificationService({
      settings,
      definitions,
      logger: logs.logger,
      shutdown,
      userAgent: 'paw/test',
      onResult: (result) => metrics.notifications.record(result),
    });
    return { settings, service, metrics, logs };
  }

  async function notifications(metrics: PawMetrics, result: string): Promise<number> {
    return sumOf(parsePrometheusText(await metrics.text()), 'paw_notifications_total', { result });
  }

  it('posts exactly one summary per failed (or missed) run, none for a good one, and never leaks the URL', async () => {
    const path = `/services/T0/B0/${TOKEN}`;
    const nightly = exampleDefinition('snapshot', {
      id: 'nightly',
      notify: { webhook: { url: receiver.url(path), allowInternalAddress: true } },
    });
    const quiet = exampleDefinition('snapshot', { id: 'quiet' });
    const { settings, service, metrics, logs } = await start('notify-once', [nightly, quiet]);
    const prefix = settings.redis.prefix;

    const failed = await recordRun(redis, prefix, {
      runId: 'nightly@20250101T010000Z',
      definitionId: 'nightly',
      items: [
        { key: 'a', status: 'succeeded', targetName: 'vm-a' },
        {
          key: 'b',
          status: 'failed',
          targetName: 'vm-b',
          errorCode: 'SNAPSHOT_FAILED',
          errorMessage: 'disk full',
        },
        { key: 'c', status: 'timed-out', targetName: 'vm-c', reason: 'no end within 6h' },
      ],
    });
    expect(failed).toBe('failed');
    await recordRun(redis, prefix, {
      runId: 'nightly@20250102T010000Z',
      definitionId: 'nightly',
      items: [{ key: 'a', status: 'succeeded', targetName: 'vm-a' }],
    });
    await new Outcomes(redis, prefix).runs.create({
      runId: 'nightly@20250103T010000Z',
      definitionId: 'nightly',
      kind: 'snapshot',
      fireTime: new Date('2025-01-03T01:00:00Z'),
      trigger: 'catch-up',
      status: 'missed',
      reason: 'no scheduler handled it in time',
    });
    await recordRun(redis, prefix, {
      runId: 'quiet@20250101T010000Z',
      definitionId: 'quiet',
      items: [{ key: 'a', status: 'failed', errorMessage: 'no hook configured' }],
    });

    // Every run end is reported, the failed one three times (repeats, a retried job).
    for (const runId of [
      'nightly@20250101T010000Z',
      'nightly@20250102T010000Z',
      'nightly@20250103T010000Z',
      'quiet@20250101T010000Z',
      'nightly@20250101T010000Z',
    ]) {
      service.producer.runEnded(runId);
    }
    await expect.poll(() => notifications(metrics, 'sent'), { timeout: 20_000 }).toBe(2);
    await expect.poll(() => notifications(metrics, 'not-needed')).toBe(1);
    await expect.poll(() => notifications(metrics, 'not-configured')).toBe(1);
    // Reported again after the delivery: still one summary.
    service.producer.runEnded('nightly@20250101T010000Z');
    await new Promise((resolve) => setTimeout(resolve, 500));

    const bodies = receiver.bodies(path) as {
      run: { runId: string; status: string; counts: { failed: number; timedOut: number } };
      failures: { itemKey: string; errorCode?: string; errorMessage?: string; reason?: string }[];
    }[];
    expect(bodies.map((body) => body.run.runId).sort()).toEqual([
      'nightly@20250101T010000Z',
      'nightly@20250103T010000Z',
    ]);
    const summary = bodies.find((body) => body.run.runId === 'nightly@20250101T010000Z');
    expect(summary).toMatchObject({
      source: 'paw',
      event: 'run.ended',
      run: { status: 'failed', counts: { failed: 1, timedOut: 1 } },
      failures: [
        { itemKey: 'b', errorCode: 'SNAPSHOT_FAILED', errorMessage: 'disk full' },
        { itemKey: 'c', reason: 'no end within 6h' },
      ],
      failuresNotListed: 0,
    });
    expect(
      receiver.requests
        .filter((r) => r.path === path)
        .every((r) => r.headers['content-type'] === 'application/json'),
    ).toBe(true);

    // The URL's secret part is nowhere but in the definition: not in logs, not in Redis.
    expect(logs.text()).toContain('run summary sent');
    expect(logs.text()).not.toContain(TOKEN);
    expect(await dumpRedis(redis, prefix)).not.toContain(TOKEN);
  });

  it('retries a webhook that fails, with the same delivery id, until it answers 2xx', async () => {
    const path = `/retry/${TOKEN}`;
    const definition = exampleDefinition('snapshot', {
      id: 'flaky',
      notify: { webhook: { url: receiver.url(path), on: 'always', allowInternalAddress: true } },
    });
    const { settings, service, metrics, logs } = await start('notify-retry', [definition]);
    await recordRun(redis, settings.redis.prefix, {
      runId: 'flaky@20250101T010000Z',
      definitionId: 'flaky',
      items: [{ key: 'a', status: 'succeeded' }],
    });
    receiver.answer(503, 500);
    service.producer.runEnded('flaky@20250101T010000Z');
    await expect.poll(() => notifications(metrics, 'sent'), { timeout: 20_000 }).toBe(1);
    expect(await notifications(metrics, 'failed')).toBe(2);
    const deliveries = receiver.requests.filter((request) => request.path === path);
    expect(deliveries).toHaveLength(3);
    expect(new Set(deliveries.map((request) => request.headers['x-paw-delivery'])).size).toBe(1);
    expect(logs.text()).toContain('will retry');
    expect(logs.text()).not.toContain(TOKEN);
    expect(await dumpRedis(redis, settings.redis.prefix)).not.toContain(TOKEN);
  });

  it('gives up at once on a 4xx, recording only the host', async () => {
    const path = `/gone/${TOKEN}`;
    const definition = exampleDefinition('snapshot', {
      id: 'gone',
      notify: { webhook: { url: receiver.url(path), on: 'always', allowInternalAddress: true } },
    });
    const { settings, service, metrics } = await start('notify-gone', [definition]);
    await recordRun(redis, settings.redis.prefix, {
      runId: 'gone@20250101T010000Z',
      definitionId: 'gone',
      items: [],
    });
    receiver.answer(404);
    service.producer.runEnded('gone@20250101T010000Z');
    await expect.poll(() => notifications(metrics, 'gave-up'), { timeout: 20_000 }).toBe(1);
    const queue = new Queue(NOTIFY_QUEUE_NAME, {
      connection: redis,
      prefix: settings.redis.prefix,
    });
    const [job] = await queue.getFailed();
    await queue.close();
    expect(job?.failedReason).toMatch(/^webhook http:\/\/127\.0\.0\.1:\d+\/… answered HTTP 404/);
    expect(job?.data).toEqual({ runId: 'gone@20250101T010000Z' });
    expect(receiver.requests.filter((request) => request.path === path)).toHaveLength(1);
    expect(await dumpRedis(redis, settings.redis.prefix)).not.toContain(TOKEN);
  });

  it('sends the Slack form, with the URL read from a file at delivery time', async () => {
    const path = `/slack/${TOKEN}`;
    const urlFile = join(dir, 'webhook-url');
    await writeFile(urlFile, `${receiver.url(path)}\n`, { mode: 0o600 });
    const definition = exampleDefinition('snapshot', {
      id: 'to-slack',
      notify: { webhook: { urlFile, format: 'slack', allowInternalAddress: true } },
    });
    const { settings, service, metrics } = await start('notify-slack', [definition]);
    await recordRun(redis, settings.redis.prefix, {
      runId: 'to-slack@20250101T010000Z',
      definitionId: 'to-slack',
      items: [{ key: 'x', status: 'failed', targetName: '<prod & co>', errorMessage: 'boom' }],
    });
    service.producer.runEnded('to-slack@20250101T010000Z');
    await expect.poll(() => notifications(metrics, 'sent'), { timeout: 20_000 }).toBe(1);
    const [body] = receiver.bodies(path) as { text: string }[];
    expect(Object.keys(body ?? {})).toEqual(['text']);
    expect(body?.text).toContain('paw: to-slack failed');
    expect(body?.text).toContain('• &lt;prod &amp; co&gt;: failed — boom');
  });

  it('refuses plain http beyond loopback without showing the path', async () => {
    const sender = new WebhookSender({ timeoutMs: 1000, allowInsecureHttp: false, userAgent: 'x' });
    const error = await sender
      .resolveUrl({
        url: `http://hooks.example.com/x/${TOKEN}`,
        on: 'always',
        format: 'json',
        allowInternalAddress: false,
      })
      .then(
        () => new Error('accepted'),
        (caught: unknown) => caught as Error,
      );
    expect(error).toMatchObject({ permanent: true });
    expect(error.message).toContain('http://hooks.example.com/…');
    expect(error.message).not.toContain(TOKEN);
  });

  it('refuses an internal address at delivery, also when only DNS says so, unless the definition allows it', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, allowInsecureHttp: true, userAgent: 'x' });
    const refusal = (promise: Promise<unknown>): Promise<Error> =>
      promise.then(
        () => new Error('accepted'),
        (caught: unknown) => caught as Error,
      );
    const path = `/internal/${TOKEN}`;
    // A urlFile is only read at delivery, so validation cannot see its address.
    const literal = await refusal(
      sender.resolveUrl({
        url: receiver.url(path),
        on: 'always',
        format: 'json',
        allowInternalAddress: false,
      }),
    );
    expect(literal).toMatchObject({ permanent: true });
    expect(literal.message).toMatch(/is a loopback address: refused unless .*allowInternalAddress/);
    // This machine's own name resolves to one of its addresses: internal, whatever they are.
    const name = hostname();
    expect(internalAddressKind((await lookup(name)).address)).toBeDefined();
    const byName = new URL(receiver.url(path));
    byName.hostname = name;
    const target = await sender.resolveUrl({
      url: byName.href,
      on: 'always',
      format: 'json',
      allowInternalAddress: false,
    });
    const afterDns = await refusal(sender.post(target, { hello: 1 }));
    expect(afterDns).toMatchObject({ permanent: true });
    expect(afterDns.message).toMatch(
      /resolves to a (loopback|private|link-local) address: refused/,
    );
    expect(afterDns.message).not.toContain(TOKEN);
    expect(receiver.requests.filter((request) => request.path === path)).toHaveLength(0);
    const allowed = await sender.resolveUrl({
      url: byName.href,
      on: 'always',
      format: 'json',
      allowInternalAddress: true,
    });
    expect(await sender.post(allowed, { hello: 1 })).toBe(200);
    expect(receiver.requests.filter((request) => request.path === path)).toHaveLength(1);
  });

  it('keeps the notify key out of run job data', async () => {
    const settings = await opsSettings('notify-jobdata');
    const queues = new RunQueues(redis, settings);
    const definition = exampleDefinition('snapshot', {
      id: 'with-hook',
      notify: { webhook: { url: `https://hooks.example.com/${TOKEN}` } },
    });
    await new RunProducer(queues).enqueueRun({
      runId: 'with-hook@20250101T010000Z',
      definitionId: 'with-hook',
      kind: 'snapshot',
      fireTime: '2025-01-01T01:00:00.000Z',
      trigger: 'cron',
      enqueuedAt: new Date().toISOString(),
      definition,
    });
    const job = await queues.queue('snapshot').getJob('with-hook@20250101T010000Z');
    await queues.close();
    const data = job?.data as { definition: Record<string, unknown> } | undefined;
    expect(data?.definition).toMatchObject({ id: 'with-hook' });
    expect(data?.definition).not.toHaveProperty('notify');
    expect(await dumpRedis(redis, settings.redis.prefix)).not.toContain(TOKEN);
  });
});
