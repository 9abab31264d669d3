import { z } from 'zod';
import type { SlaDomainOperations } from '../api/platform-api.js';
import type { Paginated } from '../pagination/paginated.js';
import type { SlaDomain, SlaDomainFilter } from '../records/sla-domain.js';
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
    return (
      await this.rest.call('getSlaDomain', this.slaDomainSchema, {
        params: { slaDomainId },
        signal,
      })
    ).data;
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
    const result = await this.rest.call('updateSlaDomain', this.slaDomainSchema, {
      params: { slaDomainId },
      body: changes,
      signal,
    });
    return result.data;
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
    const result = await this.rest.call('assignSlaDomain', this.slaDomainSchema, {
      params: { slaDomainId },
      body: { workloadIds },
      signal,
    });
    return result.data;
  }

  /** Removes the SLA Domain's protection from workloads. */
  async unassign(
    slaDomainId: string,
    workloadIds: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    const result = await this.rest.call('removeProtection', this.slaDomainSchema, {
      params: { slaDomainId },
      body: { workloadIds },
      signal,
    });
    return result.data;
  }

  /** Pauses on the given clusters, or on all of the SLA Domain's clusters. Idempotent. */
  async pause(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    const result = await this.rest.call('pauseSlaDomain', this.slaDomainSchema, {
      params: { slaDomainId },
      body: clusterIds === undefined ? {} : { clusterIds },
      signal,
    });
    return result.data;
  }

  /** Resumes on the given clusters, or on all of them. Idempotent. */
  async resume(
    slaDomainId: string,
    clusterIds?: readonly string[],
    signal?: AbortSignal,
  ): Promise<SlaDomain> {
    const result = await this.rest.call('resumeSlaDomain', this.slaDomainSchema, {
      params: { slaDomainId },
      body: clusterIds === undefined ? {} : { clusterIds },
      signal,
    });
    return result.data;
  }
}
