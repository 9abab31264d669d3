import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContenderCrashedError, type ContenderResult } from './contender-result.js';
import { platformFigures, resetPlatformCounters } from './platform-figures.js';
import type { Progress } from './progress.js';

export interface ScriptContenderOptions {
  readonly name: 'sequential' | 'concurrent';
  readonly description: string;
  /** `bench/nightly/scripts/<script>.ts` */
  readonly script: string;
  readonly baseUrl: string;
  readonly credentialsFile: string;
  readonly workloadIds: readonly string[];
  /** How many of the workloads to run; the makespan is extrapolated linearly to all. */
  readonly sample: number;
  /** 5 s of platform time, in real milliseconds. */
  readonly pollMs: number;
  readonly dir: string;
  readonly progress: Progress;
}

interface ScriptReport {
  snapshots: number;
  makespanMs: number;
  cpuMs: number;
  peakRssMb: number;
  tooManyRequests: number;
  statuses: Record<string, number>;
}

/**
 * Runs one of the scripts people write (bench/nightly/scripts/) as its own process, on the
 * first `sample` workloads of the night, and reads what the platform saw of it. The script
 * reports its own CPU time and peak memory (it is gone before /proc could be read).
 */
export async function runScriptContender(
  options: ScriptContenderOptions,
): Promise<ContenderResult> {
  const { progress } = options;
  const sample = Math.min(options.sample, options.workloadIds.length);
  const workloadsFile = join(options.dir, `${options.name}-workloads.txt`);
  await writeFile(workloadsFile, `${options.workloadIds.slice(0, sample).join('\n')}\n`);

  await resetPlatformCounters(options.baseUrl);
  const since = Date.now();
  progress.line(`${options.name}: ${sample} snapshots, polled every ${options.pollMs} ms`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      options.script,
      '--credentials',
      options.credentialsFile,
      '--workloads',
      workloadsFile,
      '--poll-ms',
      String(options.pollMs),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let lastLine = '';
  let stderrTail = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    stderrTail = (stderrTail + text).slice(-2000);
    lastLine = text.trim().split('\n').at(-1) ?? lastLine;
  });
  const ticker = setInterval(() => {
    if (lastLine !== '') progress.line(lastLine);
  }, 5_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearInterval(ticker);
  if (code !== 0)
    throw new ContenderCrashedError(
      `the ${options.name} script exited with code ${String(code)}:\n${stderrTail}`,
    );
  const report = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ScriptReport;
  const platform = await platformFigures(options.baseUrl, since);
  const measured = report.makespanMs / 1000;
  const triggered = Math.max(1, platform.triggers);
  return {
    name: options.name,
    description: options.description,
    snapshots: options.workloadIds.length,
    ...(sample < options.workloadIds.length ? { extrapolatedFrom: sample } : {}),
    makespanSeconds: (measured * options.workloadIds.length) / sample,
    measuredMakespanSeconds: measured,
    requestsPerSnapshot: platform.requests / triggered,
    requestsByOperation: platform.requestsByOperation,
    rateLimited: platform.rateLimited,
    statuses: platform.statuses,
    cpuMsPerSnapshot: report.cpuMs / triggered,
    peakRssMb: report.peakRssMb,
    processes: 1,
  };
}
