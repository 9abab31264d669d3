import type { OnDemandSnapshot } from '../defaults/default-vocabulary.js';
import type { Workload } from '../records/workload.js';

/**
 * How paw follows a snapshot it triggered, on either interface. Nothing in it is a secret, so it
 * is recorded (in the outcome item) and a poll after a restart picks it up where it was.
 *
 * - `job`: a job (request) id. REST reads it through `statusUrl` (a link on the platform's own
 *   origin) or the route table; GraphQL through the status query of the workload's kind, which
 *   needs the cluster UUID, since the snapshot mutations do not return it.
 * - `activity`: a snapshot whose job id paw never learnt (a trigger whose answer was lost, on a
 *   platform whose activity carries no job id): followed through the workload's on-demand
 *   activity since `since`.
 */
export type SnapshotTracking =
  | {
      readonly via: 'job';
      readonly workloadId: string;
      readonly jobId: string;
      readonly clusterId?: string | undefined;
      readonly onDemandSnapshot?: OnDemandSnapshot | undefined;
      readonly statusUrl?: string | undefined;
    }
  | {
      readonly via: 'activity';
      readonly workloadId: string;
      /** The activity series id, when the platform has one (GraphQL). */
      readonly activityId?: string | undefined;
      /** When the activity started (platform clock, ISO 8601). */
      readonly since: string;
      readonly clusterId?: string | undefined;
    };

/** The id an outcome record keeps for a tracked snapshot (the platform job id, or the activity's). */
export function trackedId(tracking: SnapshotTracking): string {
  return tracking.via === 'job'
    ? tracking.jobId
    : (tracking.activityId ?? `activity@${tracking.since}`);
}

/** Following job `jobId` of a snapshot of `workload`, through the status query of its kind. */
export function jobTracking(
  workload: Pick<Workload, 'id' | 'clusterId'>,
  jobId: string,
  onDemandSnapshot: OnDemandSnapshot | undefined,
): Extract<SnapshotTracking, { via: 'job' }> {
  return {
    via: 'job',
    workloadId: workload.id,
    jobId,
    clusterId: workload.clusterId,
    onDemandSnapshot,
  };
}
