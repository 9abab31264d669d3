import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { CoverageMetrics } from './coverage-metrics.js';
import { DefinitionMetrics } from './definition-metrics.js';
import { JobMetrics } from './job-metrics.js';
import { NotificationMetrics } from './notification-metrics.js';
import { OutcomeMetrics } from './outcome-metrics.js';
import { PlatformMetrics } from './platform-metrics.js';
import { QueueMetrics } from './queue-metrics.js';
import { SchedulerMetrics } from './scheduler-metrics.js';

/** How often the event-loop lag metric samples the loop. */
const EVENT_LOOP_SAMPLE_MS = 1_000;

/**
 * Every metric a paw process exposes on `/metrics`, in one registry of its own (never
 * prom-client's global one, so tests and the demo can run several in one process). The rest of
 * paw never imports prom-client: it reports through observer interfaces (platform client,
 * scheduler `onFire`, outcome store, worker jobs) that these objects implement.
 */
export class PawMetrics {
  readonly registry = new Registry();
  readonly platform: PlatformMetrics;
  readonly scheduler: SchedulerMetrics;
  readonly outcomes: OutcomeMetrics;
  readonly jobs: JobMetrics;
  readonly queues: QueueMetrics;
  readonly notifications: NotificationMetrics;
  readonly definitions: DefinitionMetrics;
  readonly coverage: CoverageMetrics;

  /**
   * @param labels added to every metric (e.g. `{ role: 'worker' }`).
   * @param processMetrics whether to add Node's process metrics (CPU, memory, event loop lag).
   */
  constructor(
    options: {
      readonly version?: string;
      readonly role?: string;
      readonly processMetrics?: boolean;
    } = {},
  ) {
    if (options.processMetrics !== false) {
      // prom-client samples event-loop lag every 10 ms by default: a timer that wakes an idle
      // process 100 times a second, and each wake-up costs CPU of its own (BENCHMARKS.md, "What
      // limits paw"). Once a second is still sure to see any stall of a second or more, the
      // lag that matters to jobs whose locks last seconds (`worker.lockDurationMs`); shorter
      // ones are seen in proportion to their length.
      collectDefaultMetrics({
        register: this.registry,
        eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
      });
    }
    const info = new Gauge({
      name: 'paw_build_info',
      help: "Always 1; labelled with paw's version and this process's role.",
      labelNames: ['version', 'role'],
      registers: [this.registry],
    });
    info.set({ version: options.version ?? 'unknown', role: options.role ?? 'unknown' }, 1);
    this.platform = new PlatformMetrics(this.registry);
    this.scheduler = new SchedulerMetrics(this.registry);
    this.outcomes = new OutcomeMetrics(this.registry);
    this.jobs = new JobMetrics(this.registry);
    this.queues = new QueueMetrics(this.registry);
    this.notifications = new NotificationMetrics(this.registry);
    this.definitions = new DefinitionMetrics(this.registry);
    this.coverage = new CoverageMetrics(this.registry);
  }

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
