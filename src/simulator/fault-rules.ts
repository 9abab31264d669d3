import { isInterfaceType, isObjectType } from 'graphql';
import { z } from 'zod';
import { publishedSchema } from '../platform/graphql/schema/platform-schema.js';
import { OPERATION_IDS } from './operation-ids.js';

const probability = z.number().min(0).max(1);

/** Added latency: a fixed delay, a uniform range, or a lognormal distribution (milliseconds). */
const latencySchema = z.union([
  z.strictObject({ fixedMs: z.number().min(0).max(600_000) }),
  z
    .strictObject({ minMs: z.number().min(0), maxMs: z.number().min(0).max(600_000) })
    .refine((range) => range.minMs <= range.maxMs, 'minMs must not exceed maxMs'),
  z.strictObject({ medianMs: z.number().min(0).max(600_000), sigma: z.number().min(0).max(5) }),
]);

/**
 * The faults injected into one operation (or into every operation, as the default). The rates
 * are probabilities of mutually exclusive outcomes drawn once per request, so they must add up
 * to at most 1; latency is added before any of them.
 */
const faultRuleSchema = z
  .strictObject({
    latency: latencySchema.optional(),
    /** Answer with one of `errorStatuses` (an error body in the operation's own format). */
    errorRate: probability.default(0),
    errorStatuses: z
      .array(z.union([z.literal(500), z.literal(502), z.literal(503)]))
      .min(1)
      .default([500, 502, 503]),
    /** Destroy the connection without answering. */
    resetRate: probability.default(0),
    /** Never answer (until the client gives up or the simulator stops). */
    hangRate: probability.default(0),
    /** Answer the real status with a truncated, unparseable body. */
    malformedRate: probability.default(0),
    /** Answer the gateway's bare 429, as if the rate limit had been hit. */
    tooManyRequestsRate: probability.default(0),
    /**
     * Stop after this many injected faults (latency aside): `{ tooManyRequestsRate: 1, times: 5 }`
     * is a burst of five 429s. Read back, it is the number left.
     */
    times: z.number().int().min(0).optional(),
  })
  .refine(
    (rule) =>
      rule.errorRate +
        rule.resetRate +
        rule.hangRate +
        rule.malformedRate +
        rule.tooManyRequestsRate <=
      1 + 1e-9,
    'errorRate, resetRate, hangRate, malformedRate and tooManyRequestsRate must add up to at most 1',
  );

/**
 * A GraphQL field of the published schema, `Type.field` (an object type or an interface): one
 * the schema lacks is refused, named, rather than never matching.
 */
const publishedFieldSchema = z
  .string()
  .regex(
    /^[_A-Za-z]\w*\.[_A-Za-z]\w*$/,
    'name a field as Type.field, e.g. GlobalSlaReply.protectedObjectCount',
  )
  .superRefine((name, context) => {
    const [typeName = '', fieldName = ''] = name.split('.');
    const type = publishedSchema().getType(typeName);
    if (type === undefined || !(isObjectType(type) || isInterfaceType(type))) {
      context.addIssue({
        code: 'custom',
        message: `the published schema has no object type or interface ${typeName}`,
      });
    } else if (!(fieldName in type.getFields())) {
      context.addIssue({ code: 'custom', message: `${typeName} has no field ${fieldName}` });
    }
  });

/** The whole fault configuration: `--faults FILE`, `PUT /_sim/faults`, `options.faults`. */
export const faultsSchema = z.strictObject({
  /** Applies to every operation that has no rule of its own. */
  default: faultRuleSchema.optional(),
  /** Per operationId (see operation-ids.ts). */
  operations: z.partialRecord(z.enum(OPERATION_IDS), faultRuleSchema).default({}),
  /**
   * GraphQL fields behind a feature flag the account lacks: answered `null` with an error whose
   * `extensions.code` is 403 beside the rest of the data, as the platform does. `Type.field`,
   * the type an object type or an interface (`SlaDomain.name` withholds it on every kind).
   */
  withheldFields: z.array(publishedFieldSchema).optional(),
});

export type FaultRule = z.output<typeof faultRuleSchema>;
export type FaultRuleInput = z.input<typeof faultRuleSchema>;
export type Faults = z.output<typeof faultsSchema>;
export type FaultsInput = z.input<typeof faultsSchema>;
export type Latency = z.output<typeof latencySchema>;
