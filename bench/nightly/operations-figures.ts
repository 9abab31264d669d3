import { spawnPaw } from '../../test/testkit/paw-process.js';
import { createReadStream, existsSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { percentile } from '../support/bench-report.js';
import { ContenderCrashedError } from './contender-result.js';

/**
 * What an operator pays for a big night once it is over, measured while paw's processes and
 * its Redis are still up: exporting the run's items with `paw outcomes --export`, and the
 * dashboard's JSON API answering.
 */
export interface ExportFigures {
  /** Wall time of the `paw outcomes` process, from spawn to exit (its start-up included). */
  readonly seconds: number;
  /** Lines written to the file: one item each. */
  readonly rows: number;
  readonly megabytes: number;
  /** Its CPU (user + system) and peak resident set, from GNU time; absent without /usr/bin/time. */
  readonly cpuSeconds?: number;
  readonly peakRssMb?: number;
}

export interface LatencyFigures {
  /** The route asked, as labelled (`/api/runs/<run>` rather than the night's run id). */
  readonly path: string;
  readonly requests: number;
  readonly medianMs: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** Size of the last answer. */
  readonly kilobytes: number;
}

const GNU_TIME = '/usr/bin/time';

/**
 * `paw outcomes <filters> --export jsonl --out <file>` as a real process (the same paw the
 * night ran, against the night's Redis), timed from spawn to exit; the file's lines are counted,
 * then it is removed.
 */
export async function measureExport(options: {
  readonly entry: readonly string[];
  /** paw's PAW_* settings (the tests' one environment rule: `pawEnvironment`). */
  readonly environment: Readonly<Record<string, string>>;
  /** Which items (`--run <id>`, `--status failed`, …); none: every item stored. */
  readonly filters: readonly string[];
  readonly dir: string;
}): Promise<ExportFigures> {
  const out = join(options.dir, 'outcomes-export.jsonl');
  const usageFile = join(options.dir, 'outcomes-export.time');
  const pawArgs = ['outcomes', ...options.filters, '--export', 'jsonl', '--out', out];
  // GNU time reads the process's own rusage when it exits: exact CPU and peak memory, which
  // /proc cannot give once the process is gone.
  const timed = existsSync(GNU_TIME);
  const started = performance.now();
  const child = spawnPaw(pawArgs, {
    cwd: process.cwd(),
    env: options.environment,
    entry: options.entry,
    prefix: timed ? [GNU_TIME, '-f', '%U %S %M', '-o', usageFile] : [],
    stdout: false,
  });
  let stderr = '';
  child.stderr?.on(
    'data',
    (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)),
  );
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0)
    throw new ContenderCrashedError(
      `paw outcomes --export exited with ${String(code)}:\n${stderr}`,
    );
  const megabytes = (await stat(out)).size / (1024 * 1024);
  const rows = await countLines(out);
  await rm(out, { force: true });
  if (!timed) return { seconds, rows, megabytes };
  // The last line: GNU time writes "Command exited with non-zero status" above it, if ever.
  const last = (await readFile(usageFile, 'utf8')).trim().split('\n').at(-1) ?? '';
  const [user, system, maxRssKb] = last.split(' ').map(Number);
  return {
    seconds,
    rows,
    megabytes,
    cpuSeconds: (user ?? NaN) + (system ?? NaN),
    peakRssMb: (maxRssKb ?? NaN) / 1024,
  };
}

/**
 * `requests` GETs of `url`, one after another on one keep-alive connection (the first opens
 * it), each timed to its last byte; the median and the largest. A non-2xx answer ends the
 * benchmark as a crash would: an ops server that refuses the bench measures nothing.
 */
export async function measureLatency(
  baseUrl: string,
  path: string,
  requests: number,
  label = path,
): Promise<LatencyFigures> {
  const times: number[] = [];
  let kilobytes = 0;
  for (let index = 0; index < requests; index++) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}${path}`);
    const body = await response.arrayBuffer();
    times.push(performance.now() - started);
    if (!response.ok) {
      throw new ContenderCrashedError(
        `GET ${path} answered ${response.status}: ${Buffer.from(body).toString('utf8').slice(0, 300)}`,
      );
    }
    kilobytes = body.byteLength / 1024;
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    path: label,
    requests,
    medianMs: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted.at(-1) ?? NaN,
    kilobytes,
  };
}

async function countLines(file: string): Promise<number> {
  let lines = 0;
  for await (const chunk of createReadStream(file)) {
    const buffer = chunk as Buffer;
    for (let index = buffer.indexOf(10); index >= 0; index = buffer.indexOf(10, index + 1)) lines++;
  }
  return lines;
}

/** What a `paw` command took, from spawn to exit, and the lines it printed. */
export interface CommandFigures {
  readonly command: string;
  readonly seconds: number;
  readonly lines: number;
}

/** `paw <args>` as a real process (the same paw and settings as the bench's), timed. */
export async function measureCommand(options: {
  readonly entry: readonly string[];
  readonly environment: Readonly<Record<string, string>>;
  readonly args: readonly string[];
}): Promise<CommandFigures> {
  const started = performance.now();
  const child = spawnPaw(options.args, {
    cwd: process.cwd(),
    env: options.environment,
    entry: options.entry,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on(
    'data',
    (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-4000)),
  );
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  const command = `paw ${options.args.join(' ')}`;
  if (code !== 0)
    throw new ContenderCrashedError(`${command} exited with ${String(code)}:\n${stderr}`);
  return { command, seconds, lines: stdout.split('\n').filter((line) => line !== '').length };
}
