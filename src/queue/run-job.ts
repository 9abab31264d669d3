import { z } from 'zod';
import {
  JOB_KINDS,
  jobDefinitionSchema,
  type DefinitionOf,
  type JobKind,
} from '../definitions/job-definition.js';
import { RUN_TRIGGERS } from '../outcomes/outcome-status.js';
import { RUN_ID_PATTERN } from './run-id.js';

/** The BullMQ job name of a run (processors may add other names, e.g. per-item jobs). */
export const RUN_JOB_NAME = 'run';

/**
 * The data of a run job, as the scheduler enqueues it and a processor receives it. It carries
 * the definition as it was when the run fired (so a worker needs no jobs folder, and an edit
 * after the fire does not change a queued run) and never a secret: BullMQ stores job data in
 * clear. The definition schemas have no secret field, and the `notify` key (whose webhook URL
 * may hold a token) is left out: notifications are sent by processes that read the definitions.
 */
export const runJobDataSchema = z
  .strictObject({
    runId: z.string().regex(RUN_ID_PATTERN),
    definitionId: z.string().min(1),
    kind: z.enum(JOB_KINDS),
    /** ISO 8601: the fire time (the moment `paw run` was asked, for a manual run). */
    fireTime: z.iso.datetime(),
    trigger: z.enum(RUN_TRIGGERS),
    enqueuedAt: z.iso.datetime(),
    definition: jobDefinitionSchema,
  })
  .refine(
    (data) => data.definition.id === data.definitionId && data.definition.kind === data.kind,
    { error: 'definitionId and kind must be those of the definition' },
  )
  .refine((data) => data.definition.notify === undefined, {
    error:
      "job data must not carry the definition's notify key (a webhook URL may hold a token); " +
      'enqueue withoutNotify(definition)',
  });

export type RunJobData = z.output<typeof runJobDataSchema>;

/** Run job data for one kind, with that kind's definition. */
export type RunJobDataOf<K extends JobKind> = Omit<RunJobData, 'kind' | 'definition'> & {
  readonly kind: K;
  readonly definition: DefinitionOf<K>;
};

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
