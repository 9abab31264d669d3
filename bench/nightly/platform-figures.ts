import type { JobScheduleReport } from '../../src/simulator/job-schedule-report.js';
import type { StatsReport } from '../../src/simulator/stats-report.js';
import { simulatorControl } from '../../test/testkit/simulator-kit.js';

/**
 * What the platform saw of one contender, from the simulator's `/_sim` introspection (never
 * from the contender's own account of itself): requests, 429s from the rate limit, and the
 * snapshot jobs it triggered with how each ended.
 */
export interface PlatformFigures {
  readonly requests: number;
  readonly requestsByOperation: Record<string, number>;
  readonly rateLimited: number;
  readonly triggers: number;
  /** Jobs triggered in the contender's window by final status; `unfinished` if still going. */
  readonly statuses: Record<string, number>;
  /** The contender's jobs in trigger order (for the lower bound). */
  readonly jobs: JobScheduleReport['jobs'];
  readonly schedule: Omit<JobScheduleReport, 'jobs'>;
  /** How long `GET /_sim/jobs` (every job of the simulator's life) took to answer and parse. */
  readonly jobsRead: { readonly seconds: number; readonly megabytes: number };
}

/** Starts a contender's window: the simulator's counters go back to zero. */
export async function resetPlatformCounters(baseUrl: string): Promise<void> {
  await simulatorControl(baseUrl, 'DELETE', '/_sim/stats');
}

/** The platform's figures for the window that started at `since` (epoch ms) and ends now. */
export async function platformFigures(baseUrl: string, since: number): Promise<PlatformFigures> {
  const until = Date.now();
  const stats = (await getJson(`${baseUrl}/_sim/stats`)).value as StatsReport;
  const readStarted = performance.now();
  const jobsAnswer = await getJson(`${baseUrl}/_sim/jobs`);
  const jobsRead = {
    seconds: (performance.now() - readStarted) / 1000,
    megabytes: jobsAnswer.bytes / (1024 * 1024),
  };
  const { jobs: allJobs, ...schedule } = jobsAnswer.value as JobScheduleReport;
  const jobs = allJobs.filter((job) => job.triggeredAt >= since);
  const statuses: Record<string, number> = {};
  for (const job of jobs) {
    const status = job.endAt <= until ? job.outcome : 'unfinished';
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return {
    requests: stats.requests,
    requestsByOperation: stats.byOperation,
    rateLimited: stats.rateLimited,
    triggers: Object.values(stats.snapshotTriggers).reduce((sum, count) => sum + count, 0),
    statuses,
    jobs,
    schedule,
    jobsRead,
  };
}

async function getJson(url: string): Promise<{ value: unknown; bytes: number }> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  const text = await response.text();
  return { value: JSON.parse(text) as unknown, bytes: Buffer.byteLength(text) };
}
