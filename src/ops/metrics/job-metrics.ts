import { Counter, Histogram, type Registry } from 'prom-client';
import type { JobObserver } from '../../queue/workers/job-observer.js';

/** Processor calls: a poll step takes milliseconds, a run that resolves thousands of workloads minutes. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * Every call of a processor, by kind, job name and how it ended (completed, delayed, waiting,
 * retrying, failed), and how long it took. Fed by the worker's {@link JobObserver}.
 */
export class JobMetrics {
  private readonly jobs: Counter<'kind' | 'job' | 'result'>;
  private readonly duration: Histogram<'kind' | 'job'>;

  constructor(registry: Registry) {
    this.jobs = new Counter({
      name: 'paw_jobs_total',
      help:
        'Processor calls, by kind, job name and result (completed, delayed, waiting, retrying, ' +
        'failed).',
      labelNames: ['kind', 'job', 'result'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'paw_job_duration_seconds',
      help: 'Duration of processor calls, by kind and job name (a snapshot poll is one call).',
      labelNames: ['kind', 'job'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
  }

  observer(): JobObserver {
    return {
      onJobProcessed: (event) => {
        this.jobs.inc({ kind: event.kind, job: event.name, result: event.result });
        this.duration.observe({ kind: event.kind, job: event.name }, event.durationMs / 1000);
      },
    };
  }
}
