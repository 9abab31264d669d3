import type { Queue } from 'bullmq';
import { Gauge, type Registry } from 'prom-client';

/** The BullMQ job states reported per queue. */
export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'failed',
  'completed',
] as const;

/**
 * Queue depths, read from Redis at each scrape (so every process reports the same, current
 * numbers: use `max by (queue, state)` across instances). A scrape while Redis is unreachable
 * reports `paw_queue_depth_up 0` instead of failing the whole page.
 */
export class QueueMetrics {
  private queues: readonly Queue[] = [];
  /** One read of Redis per scrape, shared by both gauges (prom-client collects them in parallel). */
  private reading: Promise<Map<string, Record<string, number>> | undefined> | undefined;

  constructor(registry: Registry) {
    const read = (): Promise<Map<string, Record<string, number>> | undefined> => this.read();
    new Gauge({
      name: 'paw_queue_depth_up',
      help: 'Whether this scrape could read the queue depths from Redis (1) or not (0).',
      registers: [registry],
      async collect() {
        this.set((await read()) === undefined ? 0 : 1);
      },
    });
    new Gauge({
      name: 'paw_queue_jobs',
      help: 'Jobs in each BullMQ queue, by queue and state (read from Redis at scrape time).',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        for (const [queue, counts] of (await read()) ?? []) {
          for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
        }
      },
    });
  }

  /** The queues to report (the ops server's own read-only Queue objects). */
  watch(queues: readonly Queue[]): void {
    this.queues = queues;
  }

  private read(): Promise<Map<string, Record<string, number>> | undefined> {
    this.reading ??= (async () => {
      try {
        const depths = new Map<string, Record<string, number>>();
        for (const queue of this.queues) {
          depths.set(queue.name, await queue.getJobCounts(...QUEUE_STATES));
        }
        return depths;
      } catch {
        return undefined;
      } finally {
        // The next scrape reads again.
        setImmediate(() => {
          this.reading = undefined;
        });
      }
    })();
    return this.reading;
  }
}
