import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPawServices } from '../services/start-paw-services.js';
import { PAW_VERSION } from '../../shared/paw-version.js';
import { ProgressLine } from '../output/progress-line.js';
import { loadSettings } from '../../config/load-settings.js';
import { selectEnvironment } from '../../config/select-environment.js';
import type { Settings } from '../../config/settings-schema.js';
import { loadDefinitions } from '../../definitions/load-definitions.js';
import { isUsageError } from '../../shared/usage-error.js';
import { writePrivateFileAtomically } from '../../shared/write-private-file.js';
import { Shutdown } from '../../shared/shutdown.js';
import { createLogger, type Logger } from '../../shared/logger.js';
import { PawMetrics } from '../../ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../ops/ops-server.js';
import type { Outcomes } from '../../outcomes/outcomes.js';
import type { ItemRecord } from '../../outcomes/outcome-records.js';
import { createPlatformClient, type PlatformClient } from '../../platform/platform-client.js';
import { startSimulator } from '../../simulator/simulator.js';
import { DEMO_WINDOW_SLA, demoDefinitionsYaml } from './demo-definitions.js';
import { DemoProgress } from './demo-progress.js';
import { demoRedis } from './demo-redis.js';
import type { DemoReport } from './demo-summary.js';
import { judgeDemoRuns, type DemoCheck, type EndedRun } from './demo-verdict.js';

export interface DemoOptions {
  /** How long the definitions fire. The demo then waits for the runs in flight to end. */
  readonly forMs: number;
  /** Workloads in the simulator's inventory. */
  readonly workloads: number;
  /** Longest wait for runs in flight once the time is up; 2 minutes by default. */
  readonly drainMs?: number;
  /** Progress and status lines go here (a terminal redraws the progress line in place). */
  readonly stderr: NodeJS.WriteStream;
  /** Fires when the user wants the demo to end now (Ctrl-C): it stops firing and sums up. */
  readonly stop: AbortSignal;
}

/** Log lines kept in memory when no PAW_LOG_LEVEL asks for them live. */
const KEPT_LOG_LINES = 200;

/**
 * `paw demo`: the whole of paw, end to end, in one process and for about a minute: the simulator
 * in process, a Redis of its own (see demoRedis), and paw itself (scheduler, workers,
 * notifications, the ops server with the dashboard) running three compressed definitions: a
 * snapshot of a few hundred workloads every 20 s, a short maintenance window, a secret rotation.
 * It shows progress while it runs, then waits for the runs in flight, checks what happened
 * (judgeDemoRuns, plus the simulator's view: the window's SLA Domain is not left paused, the
 * rotated secret authenticates), and leaves nothing behind: every server stopped, the temporary
 * folder removed, Redis stopped or its keys deleted.
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const started = Date.now();
  const say = (line: string): void => {
    options.stderr.write(`${line}\n`);
  };
  const cleanups: { name: string; run: () => Promise<void> }[] = [];
  const logs = demoLogger();
  try {
    const tempDir = await mkdtemp(join(tmpdir(), 'paw-demo-'));
    cleanups.push({
      name: 'temporary folder',
      run: () => rm(tempDir, { recursive: true, force: true }),
    });

    say(`paw demo: working folder ${tempDir} (removed at the end)`);

    const environment = selectEnvironment([
      'PAW_REDIS_URL',
      'PAW_LOG_LEVEL',
      'PAW_HTTP_PORT',
      'PAW_HTTP_HOST',
    ]);
    const redis = await demoRedis(environment['PAW_REDIS_URL']);
    // The demo's keys are deleted with its own Redis settings, once they are loaded.
    const loaded: { redis?: Settings['redis'] } = {};
    cleanups.push({ name: 'Redis', run: () => redis.release(loaded.redis) });
    say(`paw demo: Redis: ${redis.description}`);

    const sim = await startSimulator({ workloads: options.workloads, timeScale: 120 });
    cleanups.push({ name: 'simulator', run: () => sim.stop() });
    const fixtures = sim.fixtures();
    say(
      `paw demo: the platform simulator on ${sim.baseUrl}: ${fixtures.workloads.count} workloads on ` +
        `${fixtures.clusters.length} clusters (one disconnected); time runs 120 times faster`,
    );

    const credentialsFile = join(tempDir, 'sa.json');
    await writePrivateFileAtomically(credentialsFile, JSON.stringify(sim.credentials, null, 2));
    const jobsDir = join(tempDir, 'jobs');
    const sinkFile = join(tempDir, 'secrets', 'paw-readonly.json');
    await mkdir(jobsDir);
    await mkdir(join(tempDir, 'secrets'), { mode: 0o700 });
    await writeFile(
      join(jobsDir, 'demo.yaml'),
      demoDefinitionsYaml({ fixtures, start: new Date(), sinkFile }),
    );

    const logLevel = environment['PAW_LOG_LEVEL'];
    const { settings } = await loadSettings({
      cwd: tempDir,
      env: {
        ...environment,
        PAW_REDIS_URL: redis.url,
        PAW_REDIS_PREFIX: redis.prefix,
        PAW_CREDENTIALS_FILE: credentialsFile,
        PAW_JOBS_DIR: jobsDir,
        // Snapshot jobs last about a second here: read them every second, not every five.
        PAW_SNAPSHOT_POLL_MIN_MS: '1000',
        PAW_LOG_LEVEL: logLevel ?? 'warn',
      },
    });
    loaded.redis = settings.redis;
    const logger =
      logLevel === undefined
        ? logs.logger(settings.log.level)
        : createLogger({ level: settings.log.level, base: { component: 'demo' } });
    const definitions = (await loadDefinitions(jobsDir)).map((loaded) => loaded.definition);

    // paw itself, as `paw start` runs it.
    const shutdown = new Shutdown({ logger, graceMs: 10_000 });
    cleanups.push({ name: 'paw', run: () => shutdown.run('demo over') });
    const metrics = new PawMetrics({ version: PAW_VERSION, role: 'demo' });
    const { scheduler, workers, outcomes } = await startPawServices({
      settings,
      definitions,
      logger,
      shutdown,
      metrics,
      workers: {},
    });
    const ops = await serveDashboard(settings, logger, metrics, definitions, {
      platform: workers.platform,
      outcomes,
    });
    if (ops !== undefined) shutdown.add('ops server', () => ops.close());

    say(
      `paw demo: paw ${PAW_VERSION}: scheduler and workers (${workers.kinds.join(', ')}) running`,
    );
    say('paw demo: definitions (six-field cron, seconds first):');
    for (const definition of definitions) {
      say(
        `  ${definition.id.padEnd(15)} ${definition.kind.padEnd(14)} ${definition.schedule.cron}  ${definition.description ?? ''}`,
      );
    }
    say(
      ops === undefined
        ? 'paw demo: the dashboard is off (PAW_HTTP_PORT=0)'
        : `paw demo: dashboard: ${ops.url}/   (metrics ${ops.url}/metrics, queues ${ops.url}/queues)`,
    );
    say(`paw demo: running for ${Math.round(options.forMs / 1000)}s; Ctrl-C ends it early`);

    // Progress, while the definitions fire, then while the runs in flight end.
    const { queries } = outcomes;
    const progress = new DemoProgress(queries, metrics);
    const line = new ProgressLine(options.stderr);
    const tty = options.stderr.isTTY === true;
    let lastLine = 0;
    const show = async (phase: string): Promise<number> => {
      const snapshot = await progress.snapshot(Date.now() - started, phase);
      if (snapshot.events.length > 0) {
        line.done();
        for (const event of snapshot.events) say(event);
      }
      if (tty || Date.now() - lastLine >= 5_000) {
        line.update(snapshot.line);
        if (!tty) line.done();
        lastLine = Date.now();
      }
      return snapshot.active;
    };

    const firingEnds = Date.now() + options.forMs;
    while (Date.now() < firingEnds && !options.stop.aborted) {
      await show('running');
      await sleep(Math.min(1_000, firingEnds - Date.now()), options.stop);
    }
    await scheduler.scheduler.stop();
    const drainEnds = Date.now() + (options.drainMs ?? 120_000);
    line.done();
    say(
      options.stop.aborted
        ? 'paw demo: ended early; waiting for the runs in flight (Ctrl-C again to stop at once)'
        : 'paw demo: time is up: no more fires; waiting for the runs in flight to end',
    );
    while ((await show('finishing')) > 0 && Date.now() < drainEnds) {
      await sleep(1_000);
    }
    line.done();

    // What happened, and whether it is what should have happened.
    const runs: EndedRun[] = [];
    for (const run of await queries.listRuns({ order: 'oldest-first' })) {
      const items: ItemRecord[] = [];
      for await (const item of queries.items({ runId: run.runId })) items.push(item);
      runs.push({ run, items });
    }
    const checks: DemoCheck[] = [
      ...judgeDemoRuns(runs),
      await checkWindowResumed(workers.platform, fixtures.slaDomains),
      ...(await checkRotatedSecret(settings, logger, sinkFile, runs)),
    ];
    const warnings = logs.count();
    if (logLevel === undefined && warnings > 0) {
      checks.push({
        ok: true,
        what: `${warnings} warning${warnings === 1 ? '' : 's'} logged`,
        detail:
          'expected ones: 429s from the simulator, skipped fires; set PAW_LOG_LEVEL=warn to see them live',
      });
    }
    const ok = checks.every((check) => check.ok);
    if (!ok && logLevel === undefined) {
      for (const kept of logs.lines().slice(-20)) say(kept);
    }
    return { ok, runs, checks, dashboardUrl: ops?.url, durationMs: Date.now() - started };
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup.run();
      } catch (error) {
        say(
          `paw demo: could not stop the ${cleanup.name}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
}

/** The ops server on `http.port` (8090), or on a free port when that one is taken. */
async function serveDashboard(
  settings: Settings,
  logger: Logger,
  metrics: PawMetrics,
  definitions: Parameters<typeof startOpsServer>[0]['definitions'],
  process: { readonly platform: PlatformClient; readonly outcomes: Outcomes },
): Promise<OpsServer | undefined> {
  const options = {
    settings,
    logger,
    role: 'demo',
    version: PAW_VERSION,
    metrics,
    ...process,
    refreshSeconds: 2,
    ...(definitions === undefined ? {} : { definitions }),
  };
  try {
    return await startOpsServer(options);
  } catch (error) {
    if (!isUsageError(error)) throw error;
    return startOpsServer({ ...options, port: 0 });
  }
}

/** The window's SLA Domain must not be left paused by paw (a disconnected cluster reads UNKNOWN). */
async function checkWindowResumed(
  platform: PlatformClient,
  slaDomains: readonly { id: string; name: string }[],
): Promise<DemoCheck> {
  const what = `${DEMO_WINDOW_SLA} is not left paused after its windows`;
  const sla = slaDomains.find((domain) => domain.name === DEMO_WINDOW_SLA);
  if (sla === undefined) return { ok: false, what, detail: 'the simulator has no such SLA Domain' };
  const current = await platform.api.slaDomains.get(sla.id);
  const paused = (current.clusters ?? []).filter((cluster) => cluster.pauseStatus === 'PAUSED');
  return paused.length === 0
    ? { ok: true, what }
    : {
        ok: false,
        what,
        detail: `still paused on ${paused.map((cluster) => cluster.clusterName ?? cluster.clusterId).join(', ')}`,
      };
}

/** After a rotation, the secret in the sink must be the one that works. */
async function checkRotatedSecret(
  settings: Settings,
  logger: Logger,
  sinkFile: string,
  runs: readonly EndedRun[],
): Promise<DemoCheck[]> {
  if (!runs.some(({ run }) => run.kind === 'rotate-secret' && run.status === 'succeeded'))
    return [];
  const what = 'the rotated secret in the sink authenticates';
  let client: PlatformClient | undefined;
  try {
    client = await createPlatformClient({
      settings: { platform: { ...settings.platform, credentialsFile: sinkFile } },
      logger,
    });
    await client.tokens.token();
    return [{ ok: true, what }];
  } catch (error) {
    return [{ ok: false, what, detail: error instanceof Error ? error.message : String(error) }];
  } finally {
    await client?.close();
  }
}

/** Warnings and errors kept in memory (the terminal shows progress, not JSON logs). */
function demoLogger(): {
  logger: (level: Settings['log']['level']) => Logger;
  lines: () => string[];
  count: () => number;
} {
  const kept: string[] = [];
  let count = 0;
  const destination = {
    write(chunk: string): void {
      for (const line of chunk.split('\n')) {
        if (line.trim() === '') continue;
        count++;
        kept.push(line);
        if (kept.length > KEPT_LOG_LINES) kept.shift();
      }
    },
  };
  return {
    logger: (level) => createLogger({ level, destination, base: { component: 'demo' } }),
    lines: () => [...kept],
    count: () => count,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0 || signal?.aborted === true) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
