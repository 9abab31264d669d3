import { z } from 'zod';
import { rotateSecretDefinitionSchema } from './rotate-secret-definition.js';
import { slaWindowDefinitionSchema } from './sla-window-definition.js';
import { snapshotDefinitionSchema } from './snapshot-definition.js';

/** The kinds of job paw runs; each has its own queue and processor. */
export const JOB_KINDS = ['snapshot', 'sla-window', 'rotate-secret'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** The schema of each kind's definition. */
export const DEFINITION_SCHEMAS = {
  snapshot: snapshotDefinitionSchema,
  'sla-window': slaWindowDefinitionSchema,
  'rotate-secret': rotateSecretDefinitionSchema,
} as const;

/**
 * Any validated job definition. A validated definition is valid input again (no transforms),
 * so it can travel in job data and be re-checked by the worker that receives it.
 */
export const jobDefinitionSchema = z.discriminatedUnion('kind', [
  snapshotDefinitionSchema,
  slaWindowDefinitionSchema,
  rotateSecretDefinitionSchema,
]);

export type JobDefinition = z.output<typeof jobDefinitionSchema>;

/** The definition of one kind. */
export type DefinitionOf<K extends JobKind> = Extract<JobDefinition, { kind: K }>;

export function isJobKind(value: unknown): value is JobKind {
  return typeof value === 'string' && (JOB_KINDS as readonly string[]).includes(value);
}
