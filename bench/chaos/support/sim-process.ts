import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FaultsInput } from '../../../src/simulator/fault-rules.js';
import type { SimulatorFixtures } from '../../../src/simulator/fixtures.js';
import type { SimulatorOptionsInput } from '../../../src/simulator/options.js';
import type { StatsReport } from '../../../src/simulator/stats-report.js';
import { killGroup, spawnGroup } from './paw-process.js';

const PAW_BIN = fileURLToPath(new URL('../../../bin/paw.js', import.meta.url));

/** A `paw sim` child process, reached over HTTP like paw reaches it. */
export interface SimProcess {
  readonly baseUrl: string;
  readonly fixtures: SimulatorFixtures;
  /** The admin service account's credentials file (mode 0600), for PAW_CREDENTIALS_FILE. */
  readonly credentialsFile: string;
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
 * Starts the simulator as its own process (`paw sim --port 0 --config … --json`), so that its
 * HTTP serving competes with paw's processes for the CPU the way a remote platform would not,
 * but no paw process shares its event loop either. `options` are written as the `--config` file
 * (docs/simulator.md, "Options"); the fixtures are the JSON line it prints when ready.
 */
export async function startSimProcess(
  dir: string,
  options: SimulatorOptionsInput,
  logFile?: string,
): Promise<SimProcess> {
  const configFile = join(dir, 'sim.yaml');
  const credentialsFile = join(dir, 'sa.json');
  // JSON is YAML: the config file is the options object as it is.
  await writeFile(configFile, JSON.stringify({ ...options, port: 0 }, null, 2));
  const child = spawnGroup(
    process.execPath,
    [
      PAW_BIN,
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
    {},
  );
  const pid = child.pid ?? -1;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
  });
  if (logFile !== undefined) {
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

  return {
    baseUrl,
    fixtures,
    credentialsFile,
    pid,
    connectedClusterIds: () =>
      fixtures.clusters
        .filter((cluster) => cluster.connectionState === 'Connected')
        .map((cluster) => cluster.id),
    stats: async () => {
      const response = await fetch(`${baseUrl}/_sim/stats`);
      if (!response.ok) throw new Error(`GET /_sim/stats answered ${response.status}`);
      return (await response.json()) as StatsReport;
    },
    setFaults: async (faults) => {
      const response = await fetch(`${baseUrl}/_sim/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(faults),
      });
      if (!response.ok) {
        throw new Error(`PUT /_sim/faults answered ${response.status}: ${await response.text()}`);
      }
    },
    stop,
  };
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
