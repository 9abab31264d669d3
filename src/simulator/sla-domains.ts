import { randomUUID } from 'node:crypto';
import type { SimulatorClock } from './clock.js';
import type { EventLog } from './event-log.js';
import { byNameThenId, type Inventory } from './inventory.js';
import type {
  Frequency,
  PauseStatus,
  Retention,
  SimSlaDomain,
  SimWorkload,
  SlaPause,
  WorkloadType,
} from './records.js';
import { RestError } from './rest-error.js';

export interface SlaDomainInput {
  name: string;
  description?: string | undefined;
  objectTypes: WorkloadType[];
  frequency: Frequency;
  retention: Retention;
}

/**
 * SLA Domains: their settings, the workloads they protect, and their pause state per cluster.
 * Every change is recorded as a CONFIGURATION event with the SLA Domain as object.
 */
export class SlaDomainStore {
  private readonly byId = new Map<string, SimSlaDomain>();
  private sorted: SimSlaDomain[] | undefined;

  constructor(
    private readonly inventory: () => Inventory,
    private readonly events: EventLog,
    private readonly clock: SimulatorClock,
  ) {}

  /** Adds a seeded SLA Domain without an event. */
  seed(domain: SimSlaDomain): void {
    this.byId.set(domain.id, domain);
    this.sorted = undefined;
  }

  /** In listing order: name, then id. */
  list(): readonly SimSlaDomain[] {
    this.sorted ??= [...this.byId.values()].sort(byNameThenId);
    return this.sorted;
  }

  get(id: string): SimSlaDomain | undefined {
    return this.byId.get(id);
  }

  require(id: string): SimSlaDomain {
    const domain = this.byId.get(id);
    if (domain === undefined) throw RestError.notFound(`SLA Domain ${id} not found`);
    return domain;
  }

  /** The pause state shown for one of its clusters. */
  pauseStatus(domain: SimSlaDomain, clusterId: string): PauseStatus {
    const cluster = this.inventory().cluster(clusterId);
    if (cluster === undefined || cluster.connectionState === 'Disconnected') return 'UNKNOWN';
    return domain.pauses.has(clusterId) ? 'PAUSED' : 'NOT_PAUSED';
  }

  /** Who paused it on a cluster, when and why, while the cluster shows it PAUSED. */
  pauseOf(domain: SimSlaDomain, clusterId: string): SlaPause | undefined {
    return this.pauseStatus(domain, clusterId) === 'PAUSED'
      ? domain.pauses.get(clusterId)
      : undefined;
  }

  create(input: SlaDomainInput & { clusterIds?: readonly string[] | undefined }): SimSlaDomain {
    this.assertNameFree(input.name, undefined);
    const inventory = this.inventory();
    const clusterIds = input.clusterIds ?? inventory.clusters.map((cluster) => cluster.id);
    for (const clusterId of clusterIds) {
      if (inventory.cluster(clusterId) === undefined)
        throw RestError.notFound(`cluster ${clusterId} not found`);
    }
    const domain: SimSlaDomain = {
      id: randomUUID(),
      name: input.name,
      description: input.description ?? '',
      objectTypes: [...new Set(input.objectTypes)],
      frequency: { ...input.frequency },
      retention: { ...input.retention },
      clusterIds: [...new Set(clusterIds)],
      pauses: new Map(),
      protectedWorkloadCount: 0,
    };
    this.byId.set(domain.id, domain);
    this.sorted = undefined;
    this.recordChange(domain, `SLA Domain ${domain.name} created`);
    return domain;
  }

  update(id: string, patch: Partial<SlaDomainInput>): SimSlaDomain {
    const domain = this.require(id);
    if (patch.name !== undefined && patch.name !== domain.name) {
      this.assertNameFree(patch.name, domain.id);
      domain.name = patch.name;
      this.sorted = undefined;
    }
    if (patch.description !== undefined) domain.description = patch.description;
    if (patch.objectTypes !== undefined) domain.objectTypes = [...new Set(patch.objectTypes)];
    if (patch.frequency !== undefined) domain.frequency = { ...patch.frequency };
    if (patch.retention !== undefined) domain.retention = { ...patch.retention };
    this.recordChange(domain, `SLA Domain ${domain.name} updated`);
    return domain;
  }

  delete(id: string): void {
    const domain = this.require(id);
    if (domain.protectedWorkloadCount > 0) {
      throw new RestError(
        409,
        'FAILED_PRECONDITION',
        `SLA Domain ${domain.name} still protects ${domain.protectedWorkloadCount} workloads; remove its protection first`,
      );
    }
    this.byId.delete(id);
    this.sorted = undefined;
    this.recordChange(domain, `SLA Domain ${domain.name} deleted`);
  }

  assign(id: string, workloadIds: readonly string[]): SimSlaDomain {
    const domain = this.require(id);
    const workloads = this.resolveWorkloads(workloadIds);
    for (const workload of workloads) {
      if (!domain.objectTypes.includes(workload.type)) {
        throw RestError.invalid(
          `workload ${workload.id} is a ${workload.type}; SLA Domain ${domain.name} protects ${domain.objectTypes.join(', ')} only`,
        );
      }
    }
    for (const workload of workloads) this.setProtection(workload, domain);
    this.recordChange(
      domain,
      `SLA Domain ${domain.name} assigned to ${workloads.length} workloads`,
    );
    return domain;
  }

  unassign(id: string, workloadIds: readonly string[]): SimSlaDomain {
    const domain = this.require(id);
    const workloads = this.resolveWorkloads(workloadIds);
    // Removing protection a workload does not have changes nothing, like the real platform.
    for (const workload of workloads)
      if (workload.slaDomainId === domain.id) this.setProtection(workload, null);
    this.recordChange(
      domain,
      `protection by SLA Domain ${domain.name} removed from ${workloads.length} workloads`,
    );
    return domain;
  }

  /** Assigns or clears a workload's SLA Domain, keeping the protected counts right. */
  setProtection(workload: SimWorkload, domain: SimSlaDomain | null): void {
    if (workload.slaDomainId !== null) {
      const previous = this.byId.get(workload.slaDomainId);
      if (previous !== undefined) previous.protectedWorkloadCount--;
    }
    workload.slaDomainId = domain?.id ?? null;
    if (domain !== null) domain.protectedWorkloadCount++;
  }

  /**
   * Pauses on the given clusters, all of its clusters when none are given. A cluster it is
   * already paused on keeps who paused it first, when and why: pausing again changes nothing.
   */
  pause(
    id: string,
    clusterIds: readonly string[] | undefined,
    by: Pick<SlaPause, 'pausedBy' | 'note'>,
  ): SimSlaDomain {
    const { domain, targets } = this.pauseTargets(id, clusterIds);
    const since = this.clock.now();
    for (const clusterId of targets) {
      if (!domain.pauses.has(clusterId)) domain.pauses.set(clusterId, { ...by, since });
    }
    this.recordChange(domain, `SLA Domain ${domain.name} paused on ${targets.length} clusters`);
    return domain;
  }

  /** Resumes on the given clusters, all of its clusters when none are given. */
  resume(id: string, clusterIds: readonly string[] | undefined): SimSlaDomain {
    const { domain, targets } = this.pauseTargets(id, clusterIds);
    for (const clusterId of targets) domain.pauses.delete(clusterId);
    this.recordChange(domain, `SLA Domain ${domain.name} resumed on ${targets.length} clusters`);
    return domain;
  }

  private pauseTargets(
    id: string,
    clusterIds: readonly string[] | undefined,
  ): { domain: SimSlaDomain; targets: readonly string[] } {
    const domain = this.require(id);
    const targets = clusterIds ?? domain.clusterIds;
    for (const clusterId of targets) {
      if (!domain.clusterIds.includes(clusterId)) {
        throw RestError.invalid(
          `cluster ${clusterId} is not one of SLA Domain ${domain.name}'s clusters`,
        );
      }
    }
    return { domain, targets };
  }

  private resolveWorkloads(ids: readonly string[]): SimWorkload[] {
    const inventory = this.inventory();
    return [...new Set(ids)].map((workloadId) => {
      const workload = inventory.workload(workloadId);
      if (workload === undefined) throw RestError.notFound(`workload ${workloadId} not found`);
      return workload;
    });
  }

  private assertNameFree(name: string, exceptId: string | undefined): void {
    const lower = name.toLowerCase();
    for (const domain of this.byId.values()) {
      if (domain.id !== exceptId && domain.name.toLowerCase() === lower) {
        throw new RestError(
          409,
          'ALREADY_EXISTS',
          `an SLA Domain named ${domain.name} already exists`,
        );
      }
    }
  }

  private recordChange(domain: SimSlaDomain, message: string): void {
    this.events.record({
      type: 'CONFIGURATION',
      status: 'SUCCESS',
      severity: 'SEVERITY_INFO',
      objectId: domain.id,
      objectName: domain.name,
      objectType: 'SLA_DOMAIN',
      clusterId: null,
      jobId: null,
      message,
    });
  }
}
