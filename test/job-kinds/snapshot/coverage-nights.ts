import {
  jobDefinitionSchema,
  type JobDefinition,
} from '../../../src/definitions/job-definition.js';
import type { RunRecord } from '../../../src/outcomes/outcome-records.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { startProcessorHarness, type ProcessorHarness } from '../processor-harness.js';

/**
 * A harness whose simulator fails and cancels jobs more often than by default: a few nights of
 * its 40 workloads then show failure streaks of every length (and its Disconnected cluster,
 * skipped ones), what `paw coverage` and the dashboard's coverage view are about.
 */
export function startCoverageHarness(label: string): Promise<ProcessorHarness> {
  return startProcessorHarness({
    label,
    sim: { seed: 28, timeScale: 3000, jobs: { failureRate: 0.3, cancelRate: 0.1 } },
  });
}

/** The nightly snapshot definition of the coverage tests, of the VMs and databases by default. */
export function nightlyDefinition(
  types: readonly string[] = ['VSPHERE_VM', 'MSSQL_DATABASE'],
): JobDefinition {
  return jobDefinitionSchema.parse({
    id: 'nightly',
    kind: 'snapshot',
    schedule: { cron: '0 1 * * *' },
    targets: { types },
    retention: { slaDomainName: 'Gold' },
    maxWait: '1h',
  });
}

/**
 * One run per definition given, on consecutive nights at 01:00 UTC ending today (the oldest
 * first), each awaited to its end: the runs, in that order.
 */
export async function fireNights(
  harness: ProcessorHarness,
  nights: readonly JobDefinition[],
): Promise<RunRecord[]> {
  const today = new Date();
  const runs: RunRecord[] = [];
  for (const [index, definition] of nights.entries()) {
    const daysAgo = nights.length - 1 - index;
    const fireTime = new Date(
      Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - daysAgo, 1),
    );
    const runId = await harness.fire(definition, fireTime);
    runs.push(await harness.waitForRun(runId, undefined, 60_000));
  }
  return runs;
}

/** A scheduler's ops server over the harness's outcomes and platform, with `definitions`. */
export async function startCoverageOpsServer(
  harness: ProcessorHarness,
  definitions: readonly JobDefinition[],
): Promise<OpsServer> {
  const server = await startOpsServer({
    settings: harness.settings,
    logger: harness.logs.logger,
    role: 'scheduler',
    version: 'test',
    metrics: new PawMetrics({ processMetrics: false }),
    definitions,
    platform: harness.platform,
    outcomes: harness.outcomes,
    port: 0,
  });
  if (server === undefined) throw new Error('no ops server');
  return server;
}
