import type { Job } from 'bullmq';
import { z } from 'zod';
import {
  JOB_KINDS,
  jobDefinitionSchema,
  type DefinitionOf,
  type JobDefinition,
  type JobKind,
} from '../definitions/job-definition.js';
import { withoutNotify } from '../definitions/notify-schema.js';
import { RUN_TRIGGERS, type RunTrigger } from '../outcomes/outcome-status.js';
import { RUN_ID_PATTERN } from './run-id.js';

/** The BullMQ job name of a run (processors may add other names, e.g. a snapshot run's `snapshot-lane` jobs). */
export const RUN_JOB_NAME = 'run';

/**
 * The data of a run job, as the scheduler enqueues it and a processor receives it: this file is
 * its one home. It is built by {@link runJobData}, checked as it is stored by
 * {@link storedRunJobData} (the producer), parsed by {@link parseRunJobData} (the processors),
 * and a snapshot run's fan-out is written into it by {@link recordFanOut} and read back by the
 * same parse. It carries the definition as it was when the run fired (so a worker needs no jobs
 * folder, and an edit after the fire does not change a queued run) and never a secret: BullMQ
 * stores job data in clear. The definition schemas have no secret field, and the `notify` key
 * (whose webhook URL may hold a token) is left out: notifications are sent by processes that read
 * the definitions.
 */
const envelope = {
  runId: z.string().regex(RUN_ID_PATTERN),
  definitionId: z.string().min(1),
  kind: z.enum(JOB_KINDS),
  /** ISO 8601: the fire time (the moment `paw run` was asked, for a manual run). */
  fireTime: z.iso.datetime(),
  trigger: z.enum(RUN_TRIGGERS),
  enqueuedAt: z.iso.datetime(),
  /**
   * A run this one goes after: a worker that takes it while that run is still queued or running
   * puts it back to wait (the runs of a backfill, one after another).
   */
  after: z.string().regex(RUN_ID_PATTERN).optional(),
  /**
   * A snapshot run's fan-out, written once every item is recorded ({@link recordFanOut}): a
   * retry of the run job then skips straight to queueing the items still queued or running that
   * no lane has taken, from the outcome store, and never records an item as queued again after a
   * lane has taken it. `slaDomainId` is the retention SLA Domain it resolved (null: keepForever).
   */
  fanOut: z.strictObject({ slaDomainId: z.string().nullable() }).optional(),
};

/** The rules between the envelope and the definition it carries. */
function withEnvelopeRules<
  S extends z.ZodType<{
    definitionId: string;
    kind: string;
    definition: { id: string; kind: string; notify?: unknown };
    fanOut?: unknown;
  }>,
>(schema: S) {
  return schema
    .refine(
      (data) => data.definition.id === data.definitionId && data.definition.kind === data.kind,
      { error: 'definitionId and kind must be those of the definition' },
    )
    .refine((data) => data.definition.notify === undefined, {
      error:
        "job data must not carry the definition's notify key (a webhook URL may hold a token); " +
        'enqueue withoutNotify(definition)',
    })
    .refine((data) => data.fanOut === undefined || data.kind === 'snapshot', {
      error: 'only a snapshot run has a fan-out',
    });
}

export const runJobDataSchema = withEnvelopeRules(
  z.strictObject({ ...envelope, definition: jobDefinitionSchema }),
);

/**
 * The same rules over a definition that is already a parsed JobDefinition (the producer's case:
 * definitions are validated when they are loaded). Validating the whole definition again at
 * every fire cost the scheduler more than the rest of the fire (0.5 ms for an every-second
 * schedule, 5.8 ms before CronSchedule reused its compiled form).
 */
const runJobEnvelopeSchema = withEnvelopeRules(
  z.strictObject({
    ...envelope,
    definition: z.looseObject({
      id: z.string(),
      kind: z.enum(JOB_KINDS),
      notify: z.unknown().optional(),
    }),
  }),
);

export type RunJobData = z.output<typeof runJobDataSchema>;

/** Run job data for one kind, with that kind's definition. */
export type RunJobDataOf<K extends JobKind> = Omit<RunJobData, 'kind' | 'definition'> & {
  readonly kind: K;
  readonly definition: DefinitionOf<K>;
};

/** A snapshot run's fan-out, as its run job's data carries it (see `fanOut` above). */
export type RunFanOut = NonNullable<RunJobData['fanOut']>;

/** The data of the run job of `definition`'s run `run`, at `enqueuedAt`. */
export function runJobData(
  definition: JobDefinition,
  run: {
    readonly runId: string;
    readonly fireTime: Date;
    readonly trigger: RunTrigger;
    readonly enqueuedAt: Date;
    /** The run this one goes after (its job waits while that run is queued or running). */
    readonly after?: string | undefined;
  },
): RunJobData {
  return {
    runId: run.runId,
    definitionId: definition.id,
    kind: definition.kind,
    fireTime: run.fireTime.toISOString(),
    trigger: run.trigger,
    enqueuedAt: run.enqueuedAt.toISOString(),
    ...(run.after === undefined ? {} : { after: run.after }),
    definition,
  };
}

/**
 * The data as it is stored: without the definition's `notify`, its envelope checked (never
 * enqueue what a worker would reject; the definition was validated when it was loaded). Throws
 * a ZodError naming what is wrong.
 */
export function storedRunJobData(data: RunJobData): RunJobData {
  const stored = { ...data, definition: withoutNotify(data.definition) as JobDefinition };
  runJobEnvelopeSchema.parse(stored);
  return stored;
}

/** Validates job data a worker received; throws a ZodError naming what is wrong. */
export function parseRunJobData(data: unknown): RunJobData {
  return runJobDataSchema.parse(data);
}

/**
 * The run a run job goes after, read with the envelope's own rule: checked before the whole
 * job is parsed, since a run that must wait is put back without the cost of parsing its
 * definition.
 */
export function runJobGoesAfter(data: unknown): string | undefined {
  const after = envelope.after.safeParse((data as { after?: unknown } | null)?.after);
  return after.success ? after.data : undefined;
}

/**
 * Writes a snapshot run's fan-out into its run job's data (read back by
 * {@link parseRunJobData}), the rest of the data as it is stored.
 */
export async function recordFanOut(job: Job, fanOut: RunFanOut): Promise<void> {
  await job.updateData({ ...(job.data as object), fanOut });
}

/** Narrows run job data to one kind. */
export function isRunOf<K extends JobKind>(
  data: RunJobData,
  kind: K,
): data is RunJobData & RunJobDataOf<K> {
  return data.kind === kind;
}
