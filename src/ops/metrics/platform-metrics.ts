import { Counter, Histogram, type Registry } from 'prom-client';
import type { PlatformObserver } from '../../platform/platform-observer.js';

/** The operation that reads a snapshot job's status: what a poll costs. */
const SNAPSHOT_POLL_OPERATION = 'getSnapshotJobStatus';

/** Platform request latencies: from a fast cached read to a slow trigger near the timeouts. */
const DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The platform client's traffic: every request attempt by operation and status, its duration,
 * the 429s, access-token refreshes, and the snapshot status reads (polls) on their own. Fed by the client's {@link PlatformObserver}.
 */
export class PlatformMetrics {
  private readonly requests: Counter<'operation' | 'status'>;
  private readonly duration: Histogram<'operation'>;
  private readonly rateLimited: Counter<'operation'>;
  private readonly tokenRefreshes: Counter<'result'>;
  private readonly snapshotPolls: Histogram<'status'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'paw_platform_requests_total',
      help: 'Platform request attempts, by operation and HTTP status ("none" when no response came).',
      labelNames: ['operation', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'paw_platform_request_duration_seconds',
      help: 'Duration of platform request attempts, by operation.',
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.rateLimited = new Counter({
      name: 'paw_platform_rate_limited_total',
      help: 'Platform answers 429 (rate limited), by operation.',
      labelNames: ['operation'],
      registers: [registry],
    });
    this.tokenRefreshes = new Counter({
      name: 'paw_platform_token_refreshes_total',
      help: 'Access-token requests (one per refresh, whatever its retries), by result.',
      labelNames: ['result'],
      registers: [registry],
    });
    this.snapshotPolls = new Histogram({
      name: 'paw_snapshot_poll_duration_seconds',
      help: "Reads of a snapshot job's status (one per poll), by HTTP status.",
      labelNames: ['status'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  /** The observer to pass to `createPlatformClient({ observer })`. */
  observer(): PlatformObserver {
    return {
      onCall: (event) => {
        const operation = event.operation;
        this.requests.inc({ operation, status: event.status === null ? 'none' : event.status });
        this.duration.observe({ operation }, event.durationMs / 1000);
        if (event.status === 429) this.rateLimited.inc({ operation });
        if (operation === SNAPSHOT_POLL_OPERATION) {
          this.snapshotPolls.observe(
            { status: event.status === null ? 'none' : event.status },
            event.durationMs / 1000,
          );
        }
      },
      onTokenRefresh: (event) => {
        this.tokenRefreshes.inc({ result: event.result });
      },
    };
  }
}
