/**
 * `npm run bench -- coverage`: how long `paw coverage` takes over one definition of 10,000
 * workloads with 90 nights of items stored (the goal: ≤ 2 s). The simulator, as its own
 * process (as a remote platform, it does not share paw's CPU time or event loop), holds the
 * workloads (listed over real HTTP, 1,000 a page, as a run resolves them); a private
 * redis-server holds 90 runs of 10,000 items each, written through the outcome store (so the
 * coverage index is kept as in production); then the report is computed five times and the
 * median and the slowest printed.
 *
 *   npm run bench -- coverage                 # 10,000 workloads, 90 nights
 *   WORKLOADS=1000 NIGHTS=10 npm run bench -- coverage
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { settingsSchema } from '../src/config/settings-schema.js';
import { jobDefinitionSchema } from '../src/definitions/job-definition.js';
import type { SnapshotDefinition } from '../src/definitions/snapshot-definition.js';
import { coverageReport } from '../src/job-kinds/snapshot/coverage/coverage-report.js';
import { resolveTargets } from '../src/job-kinds/snapshot/targets.js';
import { Outcomes } from '../src/outcomes/outcomes.js';
import { createPlatformClient } from '../src/platform/platform-client.js';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { silentLogger } from '../src/shared/logger.js';
import { startSimulatorProcess } from '../test/testkit/simulator-kit.js';
import { fillOutcomeStore } from './support/outcome-fill.js';

const WORKLOADS = Number(process.env['WORKLOADS'] ?? 10_000);
const NIGHTS = Number(process.env['NIGHTS'] ?? 90);
const REPEATS = 5;

export async function run(): Promise<void> {
  const server = await startPrivateRedisServer();
  const redis = new Redis(server.url);
  const dir = await mkdtemp(join(tmpdir(), 'paw-bench-coverage-'));
  const sim = await startSimulatorProcess(dir, {
    workloads: WORKLOADS,
    seed: 8,
    rateLimit: { requestsPerSecond: 0 },
  });
  const settings = settingsSchema.parse({
    redis: { url: server.url, prefix: 'bench' },
    platform: { credentialsFile: sim.credentialsFile },
  });
  const platform = await createPlatformClient({ settings, logger: silentLogger() });
  try {
    const definition = jobDefinitionSchema.parse({
      id: 'everything',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { namePattern: '*' },
      retention: { slaDomainName: 'Gold' },
    }) as SnapshotDefinition;
    const { workloads } = await resolveTargets(definition.targets, platform);
    const outcomes = new Outcomes(redis, 'bench');
    const firstNight = Date.now() - NIGHTS * 86_400_000;
    const storing = performance.now();
    const types = new Map(workloads.map((workload) => [workload.id, workload.type]));
    await fillOutcomeStore(outcomes, {
      definitionId: definition.id,
      nights: NIGHTS,
      workloads: workloads.map((workload) => ({ ...workload, clusterId: '' })),
      firstNight,
      // What coverage reads: the status, the target and its name and type.
      item: (workload, _fired, failed) => ({
        status: failed ? 'failed' : 'succeeded',
        target: workload.id,
        targetName: workload.name,
        targetType: types.get(workload.id) ?? '',
        action: 'snapshot',
        ...(failed ? { errorMessage: 'snapshot job FAILED' } : {}),
      }),
    });
    const storeSeconds = (performance.now() - storing) / 1000;
    const memory = /used_memory_human:(\S+)/.exec(await redis.info('memory'))?.[1] ?? '?';

    const took: number[] = [];
    let counts = {};
    for (let repeat = 0; repeat < REPEATS; repeat++) {
      const started = performance.now();
      const report = await coverageReport([definition], platform, outcomes.coverage, {
        now: new Date(),
      });
      took.push(performance.now() - started);
      counts = report.definitions[0]?.counts ?? {};
    }
    took.sort((a, b) => a - b);
    const reading = performance.now();
    await outcomes.coverage.read(definition.id);
    const readMs = performance.now() - reading;
    const resolving = performance.now();
    const resolvingCpu = process.cpuUsage();
    await resolveTargets(definition.targets, platform);
    const resolveMs = performance.now() - resolving;
    const resolveCpu = process.cpuUsage(resolvingCpu);
    const resolveCpuMs = (resolveCpu.user + resolveCpu.system) / 1000;
    process.stdout.write(
      `paw coverage over ${workloads.length} workloads with ${NIGHTS} nights stored ` +
        `(${NIGHTS * workloads.length} items, Redis ${memory}, stored in ${storeSeconds.toFixed(0)} s)\n` +
        `states: ${JSON.stringify(counts)}\n` +
        `report: median ${(took[Math.floor(REPEATS / 2)] ?? 0).toFixed(0)} ms, ` +
        `slowest ${(took.at(-1) ?? 0).toFixed(0)} ms over ${REPEATS} runs ` +
        `(of one: the index read ${readMs.toFixed(0)} ms, the platform listing ${resolveMs.toFixed(0)} ms, ${resolveCpuMs.toFixed(0)} ms of it paw's CPU; ` +
        `load average before: ${(await import('node:os')).loadavg()[0]?.toFixed(2) ?? '?'})\n`,
    );
  } finally {
    await platform.close();
    await sim.stop();
    redis.disconnect();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
