/**
 * `npm run bench -- ops-abuse`: issue 36's abuse checks of the ops server, as figures.
 * - **sockets**: a client holds 160 idle sockets (re-opened as they close) while `/healthz` is
 *   probed once a second with a new connection, as the kubelet does: from another address (the
 *   node's, in a cluster) and from the attacker's own (the budget's known limit);
 * - **stale**: 300 distinct `/api/coverage?stale=` values over WORKLOADS workloads (2,000 by
 *   default) on the simulator: live heap growth (after a full GC) and platform requests;
 * - **chunk**: a packed chunk that inflates to 1 GiB, read through `GET /api/runs/<run>` 20 times
 *   and exported with `paw outcomes --export` (a child process): status, time, memory growth,
 *   exit code and whether a `.partial` file was left.
 * The ops server runs in this process (so its heap is what is measured), on a private
 * redis-server; the attacker's sockets and the probes run here too.
 *
 *   npm run bench -- ops-abuse
 *   PROBE_SECONDS=60 WORKLOADS=5000 npm run bench -- ops-abuse
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { settingsSchema, type Settings } from '../src/config/settings-schema.js';
import { jobDefinitionSchema } from '../src/definitions/job-definition.js';
import { PawMetrics } from '../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../src/ops/ops-server.js';
import { OutcomeKeys } from '../src/outcomes/outcome-keys.js';
import { Outcomes } from '../src/outcomes/outcomes.js';
import { RunPacker } from '../src/outcomes/run-packer.js';
import { createPlatformClient, type PlatformClient } from '../src/platform/platform-client.js';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { silentLogger } from '../src/shared/logger.js';
import { deflateBomb } from '../test/testkit/deflate-bomb.js';
import { holdSockets, probe } from '../test/testkit/held-sockets.js';
import { runPaw } from '../test/testkit/paw-process.js';
import { startSimulatorProcess } from '../test/testkit/simulator-kit.js';

const PROBE_SECONDS = Number(process.env['PROBE_SECONDS'] ?? 30);
const WORKLOADS = Number(process.env['WORKLOADS'] ?? 2000);
const HELD_SOCKETS = 160;
const STALE_VALUES = 300;
const MB = 1_000_000;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Live heap after a full collection. */
function liveHeap(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

export async function run(args: string[]): Promise<void> {
  if (args.includes('--help')) {
    process.stdout.write(
      'usage: [PROBE_SECONDS=30] [WORKLOADS=2000] npm run bench -- ops-abuse\n\n' +
        'Probes /healthz while 160 sockets are held, sends 300 distinct /api/coverage?stale= values,\n' +
        'and reads and exports a run with a packed chunk that inflates to 1 GiB; prints the figures.\n',
    );
    return;
  }
  const redisServer = await startPrivateRedisServer();
  const redis = new Redis(redisServer.url);
  const dir = await mkdtemp(join(tmpdir(), 'paw-bench-ops-abuse-'));
  const sim = await startSimulatorProcess(dir, {
    workloads: WORKLOADS,
    seed: 36,
    rateLimit: { requestsPerSecond: 0 },
  });
  const settings = settingsSchema.parse({
    redis: { url: redisServer.url, prefix: 'bench' },
    platform: { credentialsFile: sim.credentialsFile },
  });
  const platform = await createPlatformClient({ settings, logger: silentLogger() });
  const server = await startServer(settings, platform);
  try {
    await socketsCheck(server);
    await staleCheck(server, sim.baseUrl);
    await chunkCheck(server, redis, redisServer.url, dir);
  } finally {
    await server.close();
    await platform.close();
    await sim.stop();
    redis.disconnect();
    await redisServer.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function startServer(settings: Settings, platform: PlatformClient): Promise<OpsServer> {
  const definition = jobDefinitionSchema.parse({
    id: 'everything',
    kind: 'snapshot',
    schedule: { cron: '0 1 * * *' },
    targets: { namePattern: '*' },
    retention: { slaDomainName: 'Gold' },
  });
  const server = await startOpsServer({
    settings,
    logger: silentLogger(),
    role: 'scheduler',
    version: 'bench',
    metrics: new PawMetrics({ processMetrics: false }),
    definitions: [definition],
    platform,
    port: 0,
  });
  if (server === undefined) throw new Error('no ops server');
  return server;
}

async function socketsCheck(server: OpsServer): Promise<void> {
  for (const [label, attackerAddress] of [
    ['from the node’s address (127.0.0.1; attacker on 127.0.0.2)', '127.0.0.2'],
    ['from the attacker’s own address (both on 127.0.0.1)', '127.0.0.1'],
  ] as const) {
    const attacker = holdSockets(server.url, HELD_SOCKETS, attackerAddress);
    try {
      // Let the attacker fill what it can first.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const started = performance.now();
      const result = await probe(`${server.url}/healthz`, '127.0.0.1', PROBE_SECONDS, 1000);
      const seconds = (performance.now() - started) / 1000;
      process.stdout.write(
        `sockets: ${HELD_SOCKETS} held, re-opened as they close; /healthz probed ${label}: ` +
          `${result.answered}/${PROBE_SECONDS} answered 200 in ${seconds.toFixed(0)} s ` +
          `(the attacker opened ${attacker.opened()} connections)\n`,
      );
    } finally {
      attacker.stop();
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

async function staleCheck(server: OpsServer, simUrl: string): Promise<void> {
  const requests = async () =>
    ((await (await fetch(`${simUrl}/_sim/stats`)).json()) as { requests: number }).requests;
  // One report computed and answered before measuring: what a dashboard's first visit leaves.
  await (await fetch(`${server.url}/api/coverage`)).arrayBuffer();
  const heapBefore = liveHeap();
  const requestsBefore = await requests();
  const started = performance.now();
  for (let index = 1; index <= STALE_VALUES; index += 1) {
    const answer = await fetch(`${server.url}/api/coverage?stale=${index}h`);
    if (answer.status !== 200) throw new Error(`stale=${index}h: ${answer.status}`);
    await answer.arrayBuffer();
  }
  const seconds = (performance.now() - started) / 1000;
  const growth = (liveHeap() - heapBefore) / MB;
  process.stdout.write(
    `stale: ${STALE_VALUES} distinct /api/coverage?stale= values over ${WORKLOADS} workloads in ` +
      `${seconds.toFixed(1)} s: live heap ${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MB, ` +
      `${(await requests()) - requestsBefore} platform requests\n`,
  );
}

async function chunkCheck(
  server: OpsServer,
  redis: Redis,
  redisUrl: string,
  dir: string,
): Promise<void> {
  const prefix = 'bench';
  const runId = 'nightly@bomb';
  const outcomes = new Outcomes(redis, prefix);
  await outcomes.runs.create({
    runId,
    definitionId: 'nightly',
    kind: 'snapshot',
    fireTime: new Date(),
    trigger: 'cron',
    status: 'queued',
  });
  await outcomes.runs.start(runId);
  for (let index = 0; index < 300; index += 1) {
    await outcomes.items.record(runId, `vm-${index}`, {
      status: 'succeeded',
      target: `vm-${index}`,
    });
  }
  await outcomes.runs.finish(runId);
  const keys = new OutcomeKeys(prefix);
  await new RunPacker(redis, keys).pack(runId);
  const [first] = await redis.zrange(keys.packedIndex(runId), '0', '0');
  const bomb = await deflateBomb(1024 ** 3);
  await redis.hset(keys.packed(runId), first ?? '', bomb);

  const heapBefore = liveHeap();
  const rssBefore = process.memoryUsage().rss;
  let peakRss = rssBefore;
  const statuses = new Map<number, number>();
  const started = performance.now();
  for (let index = 0; index < 20; index += 1) {
    const answer = await fetch(`${server.url}/api/runs/${runId}`);
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    await answer.arrayBuffer();
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
  const perRead = (performance.now() - started) / 20;
  const alive = (await fetch(`${server.url}/healthz`)).status;
  process.stdout.write(
    `chunk: a ${(bomb.length / MB).toFixed(1)} MB chunk that inflates to 1 GiB, GET /api/runs/<run> ` +
      `x20: ${JSON.stringify(Object.fromEntries(statuses))}, ${perRead.toFixed(0)} ms a read, ` +
      `resident +${((peakRss - rssBefore) / MB).toFixed(0)} MB at most, live heap ` +
      `${((liveHeap() - heapBefore) / MB).toFixed(1)} MB; /healthz then ${alive}\n`,
  );

  const out = join(dir, 'export', 'bomb.jsonl');
  await (await import('node:fs/promises')).mkdir(join(dir, 'export'));
  const exporting = performance.now();
  const result = await runPaw(['outcomes', '--run', runId, '--export', 'jsonl', '--out', out], {
    cwd: dir,
    env: { PAW_REDIS_URL: redisUrl, PAW_REDIS_PREFIX: prefix },
  });
  const left = await readdir(join(dir, 'export'));
  process.stdout.write(
    `chunk: paw outcomes --export of that run: exit ${result.code} in ` +
      `${((performance.now() - exporting) / 1000).toFixed(1)} s, files left: ${left.length === 0 ? 'none' : left.join(', ')}; ` +
      `stderr: ${result.stderr.trim().split('\n')[0] ?? ''}\n`,
  );
}
