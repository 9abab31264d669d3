import { afterAll, describe, expect, it } from 'vitest';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import {
  NotificationProducer,
  createNotifyQueue,
} from '../../../src/queue/notifications/notification-queue.js';
import { workerObservers } from '../../../src/ops/worker-observers.js';
import { Outcomes } from '../../../src/outcomes/outcomes.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { opsSettings } from '../ops-settings.js';

describe('worker observers', () => {
  const redis = connectTestRedis();
  afterAll(() => redis.quit());

  it('queue a notification only for the end of a run whose definition has notify', async () => {
    const settings = await opsSettings('observers');
    const queue = createNotifyQueue(redis, settings);
    const producer = new NotificationProducer(queue, captureLogs('info').logger);
    const store = new Outcomes(
      redis,
      settings.redis.prefix,
      workerObservers(new PawMetrics({ processMetrics: false }), producer).outcomes,
    );
    try {
      for (const [definitionId, notify] of [
        ['quiet', false],
        ['loud', true],
      ] as const) {
        const runId = `${definitionId}@20250101T010000Z`;
        await store.runs.create({
          runId,
          definitionId,
          kind: 'snapshot',
          fireTime: new Date('2025-01-01T01:00:00Z'),
          trigger: 'cron',
          status: 'queued',
          notify,
        });
        await store.runs.start(runId);
        await store.runs.finish(runId, { status: 'succeeded' });
      }
      await producer.flush();
      const jobs = await queue.getJobs(['waiting', 'delayed', 'active', 'completed', 'failed']);
      expect(jobs.map((job) => ('runId' in job.data ? job.data.runId : undefined))).toEqual([
        'loud@20250101T010000Z',
      ]);
    } finally {
      await queue.close();
    }
  });
});
