import { z } from 'zod';
import { MAX_NAME_PATTERN_LENGTH } from './name-pattern.js';
import { commonShape, nonEmptyString, nonEmptyStringList } from './common-fields.js';
import { evenWithOtherProblems, onlyWithoutProblems, problem } from './refinement-options.js';
import { durationSchema, scheduleSchema } from './schedule-schema.js';
import { parseDuration } from '../shared/duration.js';

/** One name pattern, bounded so that a definition cannot make matching expensive. */
const namePattern = nonEmptyString.max(
  MAX_NAME_PATTERN_LENGTH,
  `a name pattern of at most ${MAX_NAME_PATTERN_LENGTH} characters`,
);

/**
 * Which workloads a snapshot run covers: `ids` are always included; the selectors (`types`,
 * `namePattern`, `clusterIds`, `slaDomainIds`, `slaDomainNames`) are ANDed with one another,
 * each list matching any of its values. They are resolved through the workloads list at fire
 * time.
 */
const targetsSchema = z
  .strictObject({
    ids: nonEmptyStringList.optional(),
    /** Workload types, in any spelling of a kind paw knows (checked in load-definitions.ts). */
    types: z.array(nonEmptyString).min(1).optional(),
    /** Case-insensitive glob over the whole name (see name-pattern.ts); one or a list. */
    namePattern: z.union([namePattern, z.array(namePattern).min(1)]).optional(),
    clusterIds: nonEmptyStringList.optional(),
    slaDomainIds: nonEmptyStringList.optional(),
    slaDomainNames: nonEmptyStringList.optional(),
  })
  .refine(
    (targets) => Object.values(targets).some((value) => value !== undefined),
    problem(
      'selects nothing',
      'give workload ids (ids: [...]) and/or selectors (types, namePattern, clusterIds, slaDomainIds, slaDomainNames)',
    ),
  );

/** The SLA Domain that retains the snapshots: by id, or by name resolved at fire time. */
const retentionSchema = z
  .strictObject({
    slaDomainId: nonEmptyString.optional(),
    slaDomainName: nonEmptyString.optional(),
  })
  .superRefine((retention, context) => {
    if (retention.slaDomainId === undefined && retention.slaDomainName === undefined) {
      context.addIssue({
        code: 'custom',
        message: 'names no SLA Domain',
        params: { fix: 'give retention.slaDomainId or retention.slaDomainName' },
      });
    } else if (retention.slaDomainId !== undefined && retention.slaDomainName !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'names the SLA Domain twice (by id and by name)',
        params: { fix: 'keep only slaDomainId or only slaDomainName' },
      });
    }
  }, onlyWithoutProblems);

const MAX_WAIT_LIMIT_MS = 7 * 86_400_000;

const maxWaitSchema = durationSchema.refine(
  (text) => {
    const ms = parseDuration(text);
    return ms === undefined || (ms >= 1000 && ms <= MAX_WAIT_LIMIT_MS);
  },
  problem('is outside 1s..7d', 'give a wait between 1s and 7d, e.g. 6h'),
);

export const snapshotDefinitionSchema = z
  .strictObject({
    ...commonShape,
    kind: z.literal('snapshot'),
    schedule: scheduleSchema,
    targets: targetsSchema,
    retention: retentionSchema.optional(),
    /**
     * Keep the snapshots forever (no retention SLA Domain). Must be said explicitly: a snapshot
     * taken without an SLA Domain of a workload that has none is otherwise kept forever by
     * accident.
     */
    keepForever: z.boolean().optional(),
    /** How long to wait for each snapshot job before recording it as timed out. */
    maxWait: maxWaitSchema.default('6h'),
  })
  .superRefine((definition, context) => {
    // Runs even when other keys are invalid, so the value is read defensively.
    const { retention, keepForever } = definition as {
      retention?: unknown;
      keepForever?: unknown;
    };
    if (keepForever === true && retention !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['keepForever'],
        message:
          'contradicts retention: snapshots cannot be both retained by an SLA Domain and kept forever',
        params: { fix: 'remove keepForever, or remove retention' },
      });
    }
    if (retention === undefined && keepForever !== true) {
      context.addIssue({
        code: 'custom',
        path: keepForever === undefined ? [] : ['keepForever'],
        message: 'has no retention: on-demand snapshots without an SLA Domain are kept forever',
        params: {
          fix: 'add retention: { slaDomainId: "<id>" } (or slaDomainName), or say keepForever: true if that is what you want',
        },
      });
    }
  }, evenWithOtherProblems);

export type SnapshotDefinition = z.output<typeof snapshotDefinitionSchema>;

/** Where a snapshot definition's snapshots are retained, in one shape. */
export type SnapshotRetention =
  | { readonly slaDomainId: string }
  | { readonly slaDomainName: string }
  | { readonly keepForever: true };

/** The retention of a validated snapshot definition. */
export function retentionOf(definition: SnapshotDefinition): SnapshotRetention {
  if (definition.retention?.slaDomainId !== undefined) {
    return { slaDomainId: definition.retention.slaDomainId };
  }
  if (definition.retention?.slaDomainName !== undefined) {
    return { slaDomainName: definition.retention.slaDomainName };
  }
  return { keepForever: true };
}
