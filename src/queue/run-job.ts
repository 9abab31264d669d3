import { z } from 'zod';
import {
  JOB_KINDS,
  jobDefinitionSchema,
  type DefinitionOf,
  type JobKind,
} from '../definitions/job-definition.js';
import { RUN_TRIGGERS } from '../outcomes/outcome-status.js';
import { RUN_ID_PATTERN } from './run-id.js';

/** The BullMQ job name of a run (processors may add other names, e.g. a snapshot run's `snapshot-lane` jobs). */
export const RUN_JOB_NAME = 'run';

/**
 * The data of a run job, as the scheduler enqueues it and a processor receives it. It carries
 * the definition as it was when the run fired (so a worker needs no jobs folder, and an edit
 * after the fire does not change a queued run) and never a secret: BullMQ stores job data in
 * clear. The definition schemas have no secret field, and the `notify` key (whose webhook URL
 * may hold a token) is left out: notifications are sent by processes that read the definitions.
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
};

/** The rules between the envelope and the definition it carries. */
function withEnvelopeRules<
  S extends z.ZodType<{
    definitionId: string;
    kind: string;
    definition: { id: string; kind: string; notify?: unknown };
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

/**
 * Checks the envelope of run job data built from a loaded (already valid) definition; throws a
 * ZodError naming what is wrong. Returns the data as given.
 */
export function checkRunJobEnvelope(data: RunJobData): RunJobData {
  runJobEnvelopeSchema.parse(data);
  return data;
}

/** Validates job data a worker received; throws a ZodError naming what is wrong. */
export function parseRunJobData(data: unknown): RunJobData {
  return runJobDataSchema.parse(data);
}

/** Narrows run job data to one kind. */
export function isRunOf<K extends JobKind>(
  data: RunJobData,
  kind: K,
): data is RunJobData & RunJobDataOf<K> {
  return data.kind === kind;
}
