import { z } from 'zod';
import type { SlaDomainOperations } from '../api/platform-api.js';
import type { Paginated } from '../pagination/paginated.js';
import type { SlaDomain, SlaDomainFilter } from '../records/sla-domain.js';
import type { RestOperationId } from '../defaults/default-routes.js';
import type { FieldAliases } from './field-aliases.js';
import type { RestClient } from './rest-client.js';

export const FREQUENCY_UNITS = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY'] as const;
export const RETENTION_UNITS = ['DAYS', 'WEEKS', 'MONTHS', 'YEARS'] as const;

/** An SLA Domain; extra fields are tolerated and enum-like fields accept values paw does not know. */
const slaDomainRecordSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string().nullish(),
  objectTypes: z.array(z.string()).nullish(),
  frequency: z.looseObject({ unit: z.string(), interval: z.number() }).nullish(),
  retention: z.looseObject({ unit: z.string(), duration: z.number() }).nullish(),
  protectedWorkloadCount: z.number().nullish(),
  clusters: z
    .array(
      z.looseObject({
        clusterId: z.string(),
        clusterName: z.string().nullish(),
        pauseStatus: z.string().nullish(),
      }),
    )
    .nullish(),
});

const deletedSchema = z.looseObject({ id: z.string().optional(), deleted: z.boolean().optional() });

export interface SlaDomainDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  readonly objectTypes: readonly string[];
  readonly frequency: {
    readonly unit: (typeof FREQUENCY_UNITS)[number];
    readonly interval: number;
  };
  readonly retention: {
    readonly unit: (typeof RETENTION_UNITS)[number];
    readonly duration: number;
  };
  readonly clusterIds?: readonly string[] | undefined;
}

export type SlaDomainChanges = Partial<Omit<SlaDomainDefinition, 'clusterIds'>>;

/**
 * SLA Domains through the task-based REST interface: CRUD, protection (assign/unassign) and
 * per-cluster pause and resume.
 */
export class SlaDomainsApi implements SlaDomainOperations {
  private readonly slaDomainSchema;

  constructor(
    private readonly rest: RestClient,
    aliases: FieldAliases,
  ) {
    this.slaDomainSchema = aliases
      .schemaFor('slaDomain', slaDomainRecordSchema)
      .transform((record): SlaDomain => record);
  }

  list(filter: SlaDomainFilter = {}, signal?: AbortSignal): Paginated<SlaDomain> {
    return this.rest.collection('listSlaDomains', this.slaDomainSchema, {
      query: { ...filter },
      signal,
    });
  }

  async get(slaDomainId: string, signal?: AbortSignal): Promise<SlaDomain> {
    return this.callOn('getSlaDomain', slaDomainId, undefined, signal);
  }

  async create(definition: SlaDomainDefinition, signal?: AbortSignal): Promise<SlaDomain> {
    return (
      await this.rest.call('createSlaDomain', this.slaDomainSchema, { body: definition, signal })
    ).data;
  }

  async update(
    slaDomainId: string,
    changes: SlaDomainChanges,
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.callOn('updateSlaDomain', slaDomainId, changes, signal);
  }

  async delete(slaDomainId: string, signal?: AbortSignal): Promise<void> {
    await this.rest.call('deleteSlaDomain', deletedSchema, { params: { slaDomainId }, signal });
  }

  /** Protects workloads with the SLA Domain (their types must be among its `objectTypes`). */
  async assign(
    slaDomainId: string,
    workloadIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.callOn('assignSlaDomain', slaDomainId, { workloadIds }, signal);
  }

  /** Removes the SLA Domain's protection from workloads. */
  async unassign(
    slaDomainId: string,
    workloadIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.callOn('removeProtection', slaDomainId, { workloadIds }, signal);
  }

  /** Pauses on the given clusters, or on all of the SLA Domain's clusters. Idempotent. */
  async pause(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.callOn('pauseSlaDomain', slaDomainId, onClusters(clusterIds), signal);
  }

  /** Resumes on the given clusters, or on all of them. Idempotent. */
  async resume(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    return this.callOn('resumeSlaDomain', slaDomainId, onClusters(clusterIds), signal);
  }

  /** Calls `operationId` on one SLA Domain (with `body`, when it takes one): the domain after. */
  private async callOn(
    operationId: RestOperationId,
    slaDomainId: string,
    body: unknown,
    signal: AbortSignal | undefined,
  ): Promise<SlaDomain> {
    const result = await this.rest.call(operationId, this.slaDomainSchema, {
      params: { slaDomainId },
      ...(body === undefined ? {} : { body }),
      signal,
    });
    return result.data;
  }
}

/** The body of a pause or a resume: on these clusters, or (none given) on all of them. */
function onClusters(clusterIds: readonly string[] | undefined): object {
  return clusterIds === undefined ? {} : { clusterIds };
}
