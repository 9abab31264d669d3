import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { FaultsInput } from '../../src/simulator/fault-rules.js';
import type { SimulatorFixtures } from '../../src/simulator/fixtures.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/simulator.js';
import type { StatsReport } from '../../src/simulator/stats-report.js';
import { killGroup, spawnPaw } from './paw-process.js';

/** What both ways of starting the simulator give: its address and its admin credentials file. */
interface PlatformUnderTest {
  readonly baseUrl: string;
  /** The admin service account's credentials, as the platform hands them out (mode 0600). */
  readonly credentialsFile: string;
  /** A call to the simulator's `/_sim` controls (docs/simulator.md); the JSON answer, if any. */
  readonly control: (
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ) => Promise<unknown>;
}

/** A simulator in this process, with a private folder holding its admin credentials file. */
export interface SimulatorKit extends PlatformUnderTest {
  readonly sim: SimulatorHandle;
  /** A folder of the kit's own (under the system's temporary folder), removed by `close()`. */
  readonly dir: string;
  /** Stops the simulator and removes `dir`. */
  readonly close: () => Promise<void>;
}

/**
 * The one way tests and bench/ start the platform simulator in their own process: small and
 * unthrottled by default (40 workloads, no rate limit), with its credentials written where `paw`
 * reads them (`PAW_CREDENTIALS_FILE` or `platform.credentialsFile`). Free of Vitest. A suite's
 * own fixture (test/cli/cli-simulator.ts, say) starts it and adds what its tests share.
 */
export async function startSimulatorKit(
  options: SimulatorOptionsInput = {},
  label = 'sim',
): Promise<SimulatorKit> {
  const sim = await startSimulator({
    workloads: 40,
    rateLimit: { requestsPerSecond: 0 },
    ...options,
  });
  const dir = await mkdtemp(join(tmpdir(), `paw-${label}-`));
  const credentialsFile = join(dir, 'sa.json');
  await writeFile(credentialsFile, JSON.stringify(sim.credentials, null, 2), { mode: 0o600 });
  return {
    sim,
    dir,
    baseUrl: sim.baseUrl,
    credentialsFile,
    control: (method, path, body) => simulatorControl(sim.baseUrl, method, path, body),
    close: async () => {
      await sim.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A `paw sim` child process, reached over HTTP like paw reaches it. */
export interface SimulatorProcess extends PlatformUnderTest {
  readonly fixtures: SimulatorFixtures;
  readonly pid: number;
  /** The ids of the clusters that are Connected (a disconnected one's workloads can only fail). */
  connectedClusterIds(): string[];
  /** `GET /_sim/stats`. */
  stats(): Promise<StatsReport>;
  /** `PUT /_sim/faults`: replaces the whole fault configuration. */
  setFaults(faults: FaultsInput): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

/**
 * The simulator as its own process (`paw sim --config … --port 0 --json`), so that its serving
 * competes with paw's processes for the CPU as a remote platform would not, and no paw process
 * shares its event loop (bench/). `options` are written as the `--config` file in `dir`
 * (docs/simulator.md, "Options"); the fixtures are the JSON line it prints when ready. Its
 * standard error (warnings) goes to `logFile` when given, else to this process's.
 */
export async function startSimulatorProcess(
  dir: string,
  options: SimulatorOptionsInput,
  how: {
    readonly logFile?: string;
    /** A command it runs under (`['taskset', '-c', '0']`: pinned to a CPU). */
    readonly prefix?: readonly string[];
  } = {},
): Promise<SimulatorProcess> {
  const { logFile } = how;
  const configFile = join(dir, 'sim.yaml');
  const credentialsFile = join(dir, 'sa.json');
  // JSON is YAML: the config file is the options object as it is.
  await writeFile(configFile, JSON.stringify({ ...options, port: 0 }, null, 2));
  const child = spawnPaw(
    [
      'sim',
      '--config',
      configFile,
      '--port',
      '0',
      '--json',
      '--credentials-out',
      credentialsFile,
      '--log-level',
      'warn',
    ],
    { cwd: dir, group: true, ...(how.prefix === undefined ? {} : { prefix: how.prefix }) },
  );
  const pid = child.pid ?? -1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
  });
  if (logFile === undefined) {
    child.stderr?.pipe(process.stderr, { end: false });
  } else {
    const log = createWriteStream(logFile, { flags: 'a' });
    child.stderr?.on('data', (chunk: string) => log.write(chunk));
    child.once('exit', () => log.end());
  }
  const stop = async (): Promise<void> => {
    killGroup(pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  let fixtures: SimulatorFixtures;
  try {
    fixtures = await firstJsonLine<SimulatorFixtures>(child.stdout, 60_000);
  } catch (error) {
    await stop();
    throw new Error(`paw sim did not start: ${(error as Error).message}\n${stderr}`);
  }
  // Keep draining standard output so the simulator never blocks on a full pipe.
  child.stdout?.resume();
  const baseUrl = fixtures.baseUrl;
  const control: PlatformUnderTest['control'] = (method, path, body) =>
    simulatorControl(baseUrl, method, path, body);

  return {
    baseUrl,
    fixtures,
    credentialsFile,
    pid,
    control,
    connectedClusterIds: () =>
      fixtures.clusters
        .filter((cluster) => cluster.connectionState === 'Connected')
        .map((cluster) => cluster.id),
    stats: async () => (await control('GET', '/_sim/stats')) as StatsReport,
    setFaults: async (faults) => {
      await control('PUT', '/_sim/faults', faults);
    },
    stop,
  };
}

/** The one caller of the simulator's `/_sim` controls; fails naming the call on a non-2xx answer. */
export async function simulatorControl(
  baseUrl: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await request(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await response.body.text();
  if (response.statusCode >= 300) {
    throw new Error(`${method} ${path}: ${response.statusCode} ${text}`);
  }
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** Reads `stream` until its first line, and parses that line as JSON. */
function firstJsonLine<T>(stream: NodeJS.ReadableStream | null, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    if (stream === null) {
      reject(new Error('no standard output'));
      return;
    }
    let text = '';
    const timer = setTimeout(
      () => finish(new Error(`no fixtures after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer | string): void => {
      text += chunk.toString();
      const end = text.indexOf('\n');
      if (end < 0) return;
      try {
        finish(undefined, JSON.parse(text.slice(0, end)) as T);
      } catch (error) {
        finish(error as Error);
      }
    };
    const onEnd = (): void => finish(new Error('it exited before printing its fixtures'));
    function finish(error?: Error, value?: T): void {
      clearTimeout(timer);
      stream?.removeListener('data', onData);
      stream?.removeListener('end', onEnd);
      if (error !== undefined) reject(error);
      else resolve(value as T);
    }
    stream.on('data', onData);
    stream.once('end', onEnd);
  });
}
