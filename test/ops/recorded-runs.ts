import type { Redis } from 'ioredis';
import type { JobKind } from '../../src/definitions/job-definition.js';
import type { ItemUpdate } from '../../src/outcomes/outcome-records.js';
import { Outcomes } from '../../src/outcomes/outcomes.js';
import type { OutcomeObserver } from '../../src/outcomes/outcome-observer.js';

/**
 * Records a run the way a processor does (create, start, record each item, finish) through the
 * real outcome store, for tests of what reads the store (dashboard, notifications, metrics).
 */
export async function recordRun(
  redis: Redis,
  prefix: string,
  run: {
    readonly runId: string;
    readonly definitionId: string;
    readonly kind?: JobKind;
    readonly fireTime?: Date;
    /** When the run started and ended (now, by default); items carry their own times. */
    readonly startedAt?: Date;
    readonly finishedAt?: Date;
    readonly items: ReadonlyArray<{ readonly key: string } & ItemUpdate>;
  },
  observer?: OutcomeObserver,
): Promise<string> {
  let now = run.startedAt;
  const store = new Outcomes(redis, prefix, observer, () => now ?? new Date());
  await store.runs.create({
    runId: run.runId,
    definitionId: run.definitionId,
    kind: run.kind ?? 'snapshot',
    fireTime: run.fireTime ?? new Date(),
    trigger: 'cron',
    status: 'queued',
  });
  await store.runs.start(run.runId);
  for (const { key, ...update } of run.items) {
    await store.items.record(run.runId, key, {
      startedAt: new Date(Date.now() - 1000),
      finishedAt: new Date(),
      ...update,
    });
  }
  now = run.finishedAt;
  return store.runs.finish(run.runId);
}
