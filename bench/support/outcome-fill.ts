import { randomUUID } from 'node:crypto';
import type { ItemUpdate } from '../../src/outcomes/outcome-records.js';
import type { Outcomes } from '../../src/outcomes/outcomes.js';

const DAY_MS = 86_400_000;
const ORIGIN = 'https://rsc.example.my.rubrik.com';

/** A workload a filled night snapshots. */
export interface FillWorkload {
  readonly id: string;
  readonly name: string;
  readonly clusterId: string;
}

/** `count` workloads on four clusters, named `prod-vm-00000` on. */
export function fillWorkloads(count: number): FillWorkload[] {
  const clusters = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  return Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    name: `prod-vm-${String(index).padStart(5, '0')}`,
    clusterId: clusters[index % clusters.length] ?? '',
  }));
}

/**
 * A finished snapshot item as a night leaves it: the ids, name, job id, status link and
 * details that src/job-kinds/snapshot/item-step.ts records; a failed one has an error.
 */
export function snapshotItemUpdate(
  workload: FillWorkload,
  fired: number,
  failed: boolean,
): ItemUpdate {
  const jobId = `CREATE_VSPHERE_SNAPSHOT_${workload.id}_${randomUUID()}:::0`;
  return {
    status: failed ? 'failed' : 'succeeded',
    target: workload.id,
    targetName: workload.name,
    targetType: 'VSPHERE_VM',
    action: 'snapshot',
    attempts: 1,
    platformJobId: jobId,
    startedAt: new Date(fired + 5_000),
    finishedAt: new Date(fired + 600_000),
    details: {
      trackedVia: 'job',
      platformStatus: failed ? 'FAILED' : 'SUCCEEDED',
      clusterId: workload.clusterId,
      triggeredAt: new Date(fired + 5_600).toISOString(),
      onDemandSnapshot: 'vsphere-vm',
      jobIdFrom: 'trigger',
      firstTriggerAttemptAt: new Date(fired + 5_000).toISOString(),
      triggersSent: 1,
      statusUrl: `${ORIGIN}/api/rest/workloads/${workload.id}/snapshot-jobs/${encodeURIComponent(jobId)}`,
      retentionSlaDomainId: null,
      ...(failed ? {} : { snapshotId: randomUUID() }),
      progress: 100,
    },
    ...(failed
      ? { errorCode: 'INTERNAL', errorMessage: 'snapshot job FAILED: datastore latency too high' }
      : {}),
  };
}

/** The run id paw gives a fire of `definitionId` at `fireTime` (`<id>@20250601T010000Z`). */
export function fillRunId(definitionId: string, fireTime: Date): string {
  return `${definitionId}@${fireTime.toISOString().replace(/[-:]|\.\d+/g, '')}`;
}

/**
 * Fills the outcome store with `nights` finished runs of `definitionId`, one a day from
 * `firstNight`, each with an item per workload through paw's own recording path (run created,
 * items created in pipelined batches, run finished: the coverage index and the target indexes
 * kept as in production). 2 % of each night's items fail (a different 2 % each night).
 */
export async function fillOutcomeStore(
  outcomes: Outcomes,
  options: {
    readonly definitionId: string;
    readonly nights: number;
    readonly workloads: readonly FillWorkload[];
    readonly firstNight: number;
    /** The item each workload leaves; {@link snapshotItemUpdate} unless given. */
    readonly item?: (workload: FillWorkload, fired: number, failed: boolean) => ItemUpdate;
    readonly onNight?: (night: number) => void;
  },
): Promise<string[]> {
  const item = options.item ?? snapshotItemUpdate;
  const runIds: string[] = [];
  for (let night = 0; night < options.nights; night++) {
    const fired = options.firstNight + night * DAY_MS;
    const runId = fillRunId(options.definitionId, new Date(fired));
    await outcomes.runs.create({
      runId,
      definitionId: options.definitionId,
      kind: 'snapshot',
      fireTime: new Date(fired),
      trigger: 'cron',
      status: 'queued',
    });
    await outcomes.items.create(
      runId,
      options.workloads.map((workload, index): [string, ItemUpdate] => [
        workload.id,
        item(workload, fired, (index + night) % 50 === 0),
      ]),
    );
    await outcomes.runs.finish(runId);
    runIds.push(runId);
    options.onNight?.(night);
  }
  return runIds;
}
