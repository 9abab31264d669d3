import { snapshotNote } from '../../platform/api/snapshot-note.js';
import { nextPollDelay } from '../../platform/jobs/poll-delay.js';
import { waitForSnapshotJob } from '../../platform/jobs/wait-for-snapshot-job.js';
import type { SlaDomain } from '../../platform/records/sla-domain.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';

/**
 * `--allow-writes`: one real snapshot of the named workload with the named retention, waited
 * for; and a pause and resume of the SLA Domain on the named cluster, each read back. An SLA
 * Domain already paused on that cluster is left alone (paw never resumes what someone else
 * paused).
 */
export async function writesCheck(context: DoctorContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const push = (result: CheckResult): void => {
    context.report(result);
    results.push(result);
  };
  const { api } = context.client;
  const { workloadId, slaDomainId, clusterId } = context.options;
  if (workloadId === undefined || slaDomainId === undefined) return results;

  try {
    const workload = await api.workloads.get(workloadId, context.signal);
    const trigger = await api.workloads.takeSnapshot(workload, {
      slaDomainId,
      note: snapshotNote('paw doctor --allow-writes'),
      ...(context.signal === undefined ? {} : { signal: context.signal }),
    });
    const startedAt = Date.now();
    const { job, phase, timedOut } = await waitForSnapshotJob({
      read: (signal) => api.workloads.readSnapshotJob(trigger.tracking, signal),
      initial: trigger.job,
      timeoutMs: context.options.snapshotTimeoutMs,
      signal: context.signal,
      nextDelay: (last) =>
        nextPollDelay({
          now: Date.now(),
          triggeredAt: startedAt,
          startedAt: last?.startTime === undefined ? undefined : Date.parse(last.startTime),
          progress: last?.progress,
          deadline: startedAt + context.options.snapshotTimeoutMs,
          ...context.settings.worker.snapshotPoll,
        }),
    });
    push(
      check(
        'writes.snapshot',
        `a real snapshot of ${workload.name}`,
        phase === 'succeeded' ? 'ok' : 'fail',
        timedOut
          ? `job ${job.id} still ${job.status} after ${Math.round(context.options.snapshotTimeoutMs / 1000)} s`
          : `job ${job.id} ended ${job.status}${job.errorMessage === undefined ? '' : `: ${job.errorMessage}`}`,
        {
          fix:
            phase === 'succeeded' ? undefined : 'see the job on the platform; the platform decided',
        },
      ),
    );
  } catch (error) {
    push(check('writes.snapshot', 'a real snapshot', 'fail', describe(error)));
  }

  if (clusterId === undefined) {
    push(
      check('writes.pause', 'a pause and resume', 'skip', 'no cluster named', {
        blocks: false,
        fix: 'add --cluster ID to pause and resume the SLA Domain on that cluster',
      }),
    );
    return results;
  }
  try {
    const before = statusOn(await api.slaDomains.get(slaDomainId, context.signal), clusterId);
    if (before !== 'NOT_PAUSED') {
      push(
        check(
          'writes.pause',
          'a pause and resume',
          'skip',
          `the SLA Domain is ${before} on ${clusterId}: left alone`,
          {
            blocks: false,
          },
        ),
      );
      return results;
    }
    const paused = statusOn(
      await api.slaDomains.pause(slaDomainId, [clusterId], context.signal),
      clusterId,
    );
    const resumed = statusOn(
      await api.slaDomains.resume(slaDomainId, [clusterId], context.signal),
      clusterId,
    );
    const ok = paused === 'PAUSED' && resumed === 'NOT_PAUSED';
    push(
      check(
        'writes.pause',
        `a pause and resume on ${clusterId}`,
        ok ? 'ok' : 'fail',
        `read back ${paused}, then ${resumed}`,
        {
          fix: ok
            ? undefined
            : `check the SLA Domain: paw sla get ${slaDomainId}; resume it with paw sla resume ${slaDomainId} --cluster ${clusterId}`,
        },
      ),
    );
  } catch (error) {
    push(
      check('writes.pause', 'a pause and resume', 'fail', describe(error), {
        fix: `make sure it is not left paused: paw sla get ${slaDomainId} (paw sla resume ${slaDomainId} --cluster ${clusterId})`,
      }),
    );
  }
  return results;
}

function statusOn(sla: SlaDomain, clusterId: string): string {
  return (
    (sla.clusters ?? []).find((cluster) => cluster.clusterId === clusterId)?.pauseStatus ??
    'UNKNOWN'
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
