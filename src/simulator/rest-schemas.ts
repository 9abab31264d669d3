import { z } from 'zod';
import {
  CLUSTER_TYPES,
  CONNECTION_STATES,
  EVENT_SEVERITIES,
  FREQUENCY_UNITS,
  PAUSE_STATUSES,
  RETENTION_UNITS,
} from './records.js';

/**
 * The task-based REST interface's shapes (docs/platform-model.md), as zod schemas. The same
 * schemas validate requests, serialise responses and generate the OpenAPI document. Words that
 * depend on the simulator's vocabulary (workload types, statuses, event words) are strings
 * here: sim-vocabulary.ts says and reads them.
 */

/** A word of the simulator's vocabulary; requests take any spelling (sim-vocabulary.ts). */
const word = (description: string) => z.string().register(restSchemaRegistry, { description });

/**
 * The named schemas of the OpenAPI document (`components.schemas`). A registry of its own, not
 * zod's global one, so that no other module's schema ids can collide with these.
 */
export const restSchemaRegistry = z.registry<{ id?: string | undefined; [key: string]: unknown }>();

const timestamp = z.string().register(restSchemaRegistry, { description: 'ISO 8601 UTC' });
const id = z.string().register(restSchemaRegistry, { description: 'UUID' });

// ---- records -------------------------------------------------------------------------------

export const workloadSchema = z
  .object({
    id,
    name: z.string(),
    type: word('the workload type, in the platform vocabulary'),
    clusterId: id,
    clusterName: z.string(),
    slaDomainId: id.nullable(),
    slaDomainName: z.string().nullable(),
  })
  .register(restSchemaRegistry, { id: 'Workload' });

const reference = z.object({ id, name: z.string() });

/** The workload of the `v2` layout: the type is `objectType`, cluster and SLA Domain nested. */
export const workloadV2Schema = z
  .object({
    id,
    name: z.string(),
    objectType: word('the workload type, in the platform vocabulary'),
    cluster: reference,
    slaDomain: reference.nullable(),
  })
  .register(restSchemaRegistry, { id: 'ProtectedObject' });

export const snapshotSchema = z
  .object({
    id,
    workloadId: id,
    date: timestamp,
    isOnDemand: z.boolean(),
    slaDomainId: id
      .nullable()
      .register(restSchemaRegistry, { description: 'null with expirationDate null: kept forever' }),
    expirationDate: timestamp.nullable(),
    jobId: z.string().nullable(),
  })
  .register(restSchemaRegistry, { id: 'Snapshot' });

export const snapshotJobSchema = z
  .object({
    id: z.string().register(restSchemaRegistry, {
      description: 'CREATE_VSPHERE_SNAPSHOT_<workload-id>_<run-id>:::0 or MSSQL_DB_BACKUP_…',
    }),
    workloadId: id,
    status: word(
      'QUEUED, ACQUIRING, RUNNING, FINISHING, CANCELING, then SUCCEEDED, FAILED or CANCELED (in the platform vocabulary)',
    ),
    progress: z.number().int().min(0).max(100),
    startTime: timestamp.nullable(),
    endTime: timestamp.nullable(),
    nodeId: z.string(),
    error: z.object({ message: z.string() }).nullable(),
    snapshotId: id.nullable(),
    links: z.array(z.object({ href: z.string(), rel: z.string() })),
  })
  .register(restSchemaRegistry, { id: 'SnapshotJob' });

const frequencySchema = z.object({
  unit: z.enum(FREQUENCY_UNITS),
  interval: z.number().int().min(1).max(1000),
});
const retentionSchema = z.object({
  unit: z.enum(RETENTION_UNITS),
  duration: z.number().int().min(1).max(10_000),
});

export const slaDomainSchema = z
  .object({
    id,
    name: z.string(),
    description: z.string(),
    objectTypes: z.array(word('a workload type, in the platform vocabulary')),
    frequency: frequencySchema,
    retention: retentionSchema,
    protectedWorkloadCount: z.number().int(),
    clusters: z.array(
      z.object({ clusterId: id, clusterName: z.string(), pauseStatus: z.enum(PAUSE_STATUSES) }),
    ),
  })
  .register(restSchemaRegistry, { id: 'SlaDomain' });

export const clusterSchema = z
  .object({
    id,
    name: z.string(),
    type: z.enum(CLUSTER_TYPES),
    connectionState: z.enum(CONNECTION_STATES),
    version: z.string(),
  })
  .register(restSchemaRegistry, { id: 'Cluster' });

export const eventSchema = z
  .object({
    id,
    time: timestamp,
    type: word('BACKUP or CONFIGURATION, in the platform vocabulary'),
    status: word('QUEUED, RUNNING, SUCCESS, FAILURE, CANCELED, INFO, ...'),
    severity: z.enum(EVENT_SEVERITIES),
    objectId: z.string(),
    objectName: z.string(),
    objectType: z.string(),
    clusterId: id.nullable(),
    jobId: z.string().nullable(),
    isOnDemand: z.boolean(),
    message: z.string(),
  })
  .register(restSchemaRegistry, { id: 'Event' });

const pageInfoSchema = z
  .object({
    startCursor: z.string().nullable(),
    endCursor: z.string().nullable(),
    hasNextPage: z.boolean(),
    hasPreviousPage: z.boolean(),
  })
  .register(restSchemaRegistry, { id: 'PageInfo' });

// ---- envelopes -----------------------------------------------------------------------------

const metadata = z.record(z.string(), z.unknown()).nullable();

/** `{ data, error: null, metadata }` around a successful result. */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.object({ data, error: z.null(), metadata });
}

/** `{ data: { nodes, count, pageInfo }, … }` around one page of a collection. */
export function collectionEnvelopeOf<T extends z.ZodType>(item: T) {
  return envelopeOf(
    z.object({ nodes: z.array(item), count: z.number().int(), pageInfo: pageInfoSchema }),
  );
}

export const errorEnvelopeSchema = z
  .object({
    data: z.null(),
    error: z.object({ code: z.string(), message: z.string() }),
    metadata: z.null(),
  })
  .register(restSchemaRegistry, { id: 'ErrorEnvelope' });

/** Error statuses a REST operation answers in the envelope (401, 429, 502, 503 are the gateway's). */
export const errorResponses = {
  400: errorEnvelopeSchema,
  403: errorEnvelopeSchema,
  404: errorEnvelopeSchema,
} as const;

// ---- parameters and bodies -----------------------------------------------------------------

const pageParams = {
  first: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(50)
    .register(restSchemaRegistry, { description: 'page size, 1..1000' }),
  after: z
    .string()
    .min(1)
    .optional()
    .register(restSchemaRegistry, { description: 'the endCursor of the previous page' }),
};

export const listWorkloadsQuery = z.object({
  name: z
    .string()
    .optional()
    .register(restSchemaRegistry, { description: 'substring of the name, case-insensitive' }),
  type: word('a workload type, any spelling').optional(),
  clusterId: z.string().optional(),
  slaDomainId: z.string().optional(),
  ...pageParams,
});

export const pageQuery = z.object(pageParams);

export const takeSnapshotBody = z
  .object({
    slaDomainId: z.string().min(1).nullable().optional().register(restSchemaRegistry, {
      description:
        "retention SLA Domain; the workload's own when omitted, kept forever if it has none",
    }),
  })
  // Fastify validates a missing body as null.
  .nullish();

const SLA_FILTER_FIELDS = [
  'NAME',
  'NAME_EXACT_MATCH',
  'CLUSTER_UUID',
  'OBJECT_TYPE',
  'SHOW_PAUSED_SLAS_ONLY',
] as const;

export const listSlaDomainsQuery = z.object({
  filterField: z.enum(SLA_FILTER_FIELDS).optional(),
  filterText: z.string().optional(),
  ...pageParams,
});

const slaDomainFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2000).optional(),
  objectTypes: z.array(word('a workload type, any spelling')).min(1),
  frequency: frequencySchema,
  retention: retentionSchema,
};

export const createSlaDomainBody = z.object({
  ...slaDomainFields,
  clusterIds: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .register(restSchemaRegistry, { description: 'all clusters when omitted' }),
});

export const updateSlaDomainBody = z.object({
  name: slaDomainFields.name.optional(),
  description: slaDomainFields.description,
  objectTypes: slaDomainFields.objectTypes.optional(),
  frequency: frequencySchema.optional(),
  retention: retentionSchema.optional(),
  clusterIds: z
    .undefined({ error: 'the clusters of an SLA Domain cannot be changed; create a new one' })
    .optional(),
});

export const workloadIdsBody = z.object({
  workloadIds: z.array(z.string().min(1)).min(1).max(10_000),
});

export const clusterIdsBody = z
  .object({
    clusterIds: z
      .array(z.string().min(1))
      .min(1)
      .optional()
      .register(restSchemaRegistry, { description: 'all of its clusters when omitted' }),
  })
  .nullish();

export const deletedSchema = z.object({ id, deleted: z.literal(true) });

export const listClustersQuery = z.object({
  name: z
    .string()
    .optional()
    .register(restSchemaRegistry, { description: 'substring of the name, case-insensitive' }),
  type: z.enum(CLUSTER_TYPES).optional(),
  connectionState: z.enum(CONNECTION_STATES).optional(),
  ...pageParams,
});

const isoParam = z.iso
  .datetime({ offset: true })
  .register(restSchemaRegistry, { description: 'ISO 8601, inclusive' });

export const listEventsQuery = z.object({
  objectId: z.string().optional(),
  type: word('an event type, any spelling').optional(),
  status: word('an event status, any spelling').optional(),
  severity: z.enum(EVENT_SEVERITIES).optional(),
  startTime: isoParam.optional(),
  endTime: isoParam.optional(),
  ...pageParams,
});
