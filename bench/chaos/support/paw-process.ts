import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { eventually } from '../../../test/testkit/eventually.js';
import { killGroup, spawnPaw } from '../../../test/testkit/paw-process.js';

/** Standard error kept in memory per process; the whole of it goes to the log file. */
const STDERR_TAIL_CHARS = 64_000;

export interface PawProcessOptions {
  readonly cwd: string;
  /** PAW_* settings of the child (the one environment rule: `pawEnvironment`). */
  readonly env: Readonly<Record<string, string>>;
  /** Every line of standard output and standard error is appended here. */
  readonly logFile?: string;
}

export interface PawExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A long-running `paw` child process (a worker, a scheduler) for the chaos suite, started by the
 * tests' `spawnPaw`. Unlike their `PawProcess` it writes its output to a log file (a chaos run
 * lasts minutes and logs a lot), keeps only the tail in memory, and runs in its own process
 * group, so that a kill reaches everything it started and nothing is left behind when a scenario
 * fails.
 */
export class PawChild {
  readonly child: ChildProcess;
  readonly exited: Promise<PawExit>;
  private tail = '';

  constructor(
    readonly args: readonly string[],
    options: PawProcessOptions,
  ) {
    this.child = spawnPaw(args, { cwd: options.cwd, env: options.env, group: true });
    const log =
      options.logFile === undefined
        ? undefined
        : createWriteStream(options.logFile, { flags: 'a' });
    const keep = (chunk: string): void => {
      this.tail = (this.tail + chunk).slice(-STDERR_TAIL_CHARS);
      log?.write(chunk);
    };
    this.child.stdout?.setEncoding('utf8').on('data', keep);
    this.child.stderr?.setEncoding('utf8').on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        log?.end();
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The last lines it printed (both streams), for a failure message. */
  output(): string {
    return this.tail;
  }

  /** Waits until its output matches `pattern`; fails if it exits first or after `timeoutMs`. */
  async waitForOutput(pattern: RegExp, timeoutMs = 60_000): Promise<void> {
    await eventually(
      `paw ${this.args.join(' ')} to print ${String(pattern)}`,
      () => {
        if (pattern.test(this.tail)) return true;
        if (!this.running) {
          throw new Error(
            `paw ${this.args.join(' ')} exited before printing ${String(pattern)}:\n${this.tail.slice(-2_000)}`,
          );
        }
        return false;
      },
      { timeoutMs },
    );
  }

  /** Sends `signal` to its process group and waits for the exit (SIGKILL after `graceMs`). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<PawExit> {
    if (this.running) killGroup(this.pid, signal);
    const timer = setTimeout(() => killGroup(this.pid, 'SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Runs `paw args` to completion and returns what it printed. */
export async function runPawCommand(
  args: readonly string[],
  options: PawProcessOptions & { timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnPaw(args, { cwd: options.cwd, env: options.env, group: true });
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const timer = setTimeout(
    () => killGroup(child.pid ?? -1, 'SIGKILL'),
    options.timeoutMs ?? 120_000,
  );
  try {
    // 'close', not 'exit': the output has been read to the end by then.
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    return { code, stdout, stderr };
  } finally {
    clearTimeout(timer);
  }
}
