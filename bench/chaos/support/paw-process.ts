import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PAW_BIN = fileURLToPath(new URL('../../../bin/paw.js', import.meta.url));

/** Standard error kept in memory per process; the whole of it goes to the log file. */
const STDERR_TAIL_CHARS = 64_000;

/**
 * Process groups started here and still running. Children run detached (their own group, so a
 * kill reaches all of it), which also means they would outlive this process: if it exits without
 * stopping them (a crash, process.exit), they are killed on the way out.
 */
const liveGroups = new Set<number>();
const killLiveGroups = (): void => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
};
process.once('exit', killLiveGroups);
// Ctrl-C reaches only the terminal's foreground group, not the detached children. Exiting
// (rather than dying of the signal) runs the 'exit' handlers: this one, and the private
// redis-server's, which kills that server.
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const) {
  process.once(signal, () => process.exit(code));
}

/** Spawns `command args` detached, in its own process group, remembered until it exits. */
export function spawnGroup(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
): ChildProcess {
  const child = spawn(command, args, {
    ...options,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  if (pid !== undefined) {
    liveGroups.add(pid);
    child.once('exit', () => liveGroups.delete(pid));
  }
  return child;
}

export interface PawProcessOptions {
  readonly cwd: string;
  /** PAW_* settings of the child; the caller's own PAW_* variables are not passed on. */
  readonly env: Readonly<Record<string, string>>;
  /** Every line of standard output and standard error is appended here. */
  readonly logFile?: string;
}

export interface PawExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * A long-running `paw` child process (a worker, a scheduler) for the chaos suite. Unlike the test
 * harness's `test/support/paw-process.ts` it writes its output to a log file (a chaos run lasts
 * minutes and logs a lot), keeps only the tail in memory, and runs in its own process group, so
 * that a kill reaches everything it started and nothing is left behind when a scenario fails.
 */
export class PawChild {
  readonly child: ChildProcess;
  readonly exited: Promise<PawExit>;
  private tail = '';

  constructor(
    readonly args: readonly string[],
    options: PawProcessOptions,
  ) {
    this.child = spawnGroup(process.execPath, [PAW_BIN, ...args], {
      cwd: options.cwd,
      env: childEnvironment(options.env),
    });
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
    const started = Date.now();
    while (!pattern.test(this.tail)) {
      if (!this.running) {
        throw new Error(
          `paw ${this.args.join(' ')} exited before printing ${String(pattern)}:\n${this.tail.slice(-2_000)}`,
        );
      }
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `paw ${this.args.join(' ')} did not print ${String(pattern)} within ${timeoutMs} ms`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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
  const child = spawnGroup(process.execPath, [PAW_BIN, ...args], {
    cwd: options.cwd,
    env: childEnvironment(options.env),
  });
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

/** Signals a whole process group (the child was spawned detached: its pid is the group's id). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** This process's environment minus any PAW_* variable, plus the child's own settings. */
function childEnvironment(env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('PAW_')) base[name] = value;
  }
  // No ops server: several workers on one machine would all want port 8090.
  return { ...base, PAW_HTTP_PORT: '0', ...env };
}
