import type { SimulatorState } from './simulator-state.js';

/**
 * `GET /_sim/jobs`: every snapshot job's drawn schedule, in trigger order, with the slot
 * settings it was drawn under. Enough to replay the clusters' slot schedule with other trigger
 * times, which is how `npm run bench -- nightly` computes the lower bound the platform imposes
 * on a night (bench/nightly/lower-bound.ts). Times are epoch milliseconds (real time). A job
 * also shows what its trigger asked for beyond the snapshot, where it asked: GraphQL's
 * `userNote` and `forceFullSnapshot`.
 */
export function jobScheduleReport(state: SimulatorState) {
  const jobs = [];
  for (const job of state.jobs.all()) {
    jobs.push({
      id: job.id,
      workloadId: job.workload.id,
      clusterId: job.workload.cluster.id,
      outcome: job.outcome,
      triggeredAt: job.triggeredAt,
      /** When its slot came free and it left QUEUED. */
      startAt: job.startAt,
      endAt: job.endAt,
      /** Time it holds its slot (shorter than `durationMs` for a failed or canceled job). */
      runMs: job.endAt - job.startAt,
      /** The drawn duration of a job that succeeds. */
      durationMs: job.durationMs,
      // Only when the trigger gave them: a night's report lists 100,000 jobs.
      ...(job.request.userNote === null ? {} : { userNote: job.request.userNote }),
      ...(job.request.forceFullSnapshot === null
        ? {}
        : { forceFullSnapshot: job.request.forceFullSnapshot }),
    });
  }
  return {
    timeScale: state.options.timeScale,
    concurrencyPerCluster: state.options.jobs.concurrencyPerCluster,
    /** Shortest time in QUEUED, real milliseconds. */
    queuedMs: state.clock.realMs(state.options.jobs.queuedSeconds),
    jobs,
  };
}

export type JobScheduleReport = ReturnType<typeof jobScheduleReport>;
