import type { SimulatorState } from './simulator-state.js';

/** `GET /_sim/stats`: the counters plus what the stores know right now. */
export function statsReport(state: SimulatorState) {
  const memory = process.memoryUsage();
  return {
    ...state.stats.counters(),
    tokens: {
      issued: state.tokens.issued,
      revoked: state.tokens.revoked,
      live: state.tokens.live(),
    },
    liveSessions: state.clusterSessions.live(),
    snapshotJobs: { total: state.jobs.size, byStatus: state.jobs.countByStatus() },
    /** The whole process's memory (several simulators may share it). */
    process: { rssBytes: memory.rss, heapUsedBytes: memory.heapUsed },
  };
}

export type StatsReport = ReturnType<typeof statsReport>;
