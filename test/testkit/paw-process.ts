import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from './eventually.js';

/** The `paw` executable of this checkout (its sources through tsx). */
export const PAW_BIN = fileURLToPath(new URL('../../bin/paw.js', import.meta.url));

/**
 * The one environment a `paw` child gets, in the tests and in bench/: the PATH (to find node,
 * taskset, redis-server), a HOME of its own (its working folder) and the PAW_* settings it is
 * given, nothing else of the caller's (so a developer's own PAW_* variables never reach it). The
 * ops server is off unless asked for: several processes on one machine would all want port 8090.
 */
function pawEnvironment(
  env: Readonly<Record<string, string>>,
  cwd: string,
): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: cwd, PAW_HTTP_PORT: '0', ...env };
}

export interface SpawnPawOptions {
  readonly cwd: string;
  /** PAW_* settings of the child (see {@link pawEnvironment}). */
  readonly env?: Readonly<Record<string, string>>;
  /** What node runs, with node's own options first: `bin/paw.js` unless said otherwise. */
  readonly entry?: readonly string[];
  /** A command `node` runs under (`['taskset', '-c', '0']`). */
  readonly prefix?: readonly string[];
  /** Whether standard input is a pipe the caller writes (else it is closed). */
  readonly stdin?: boolean;
  /** Whether standard output is read (else it is thrown away: a benchmark's processes). */
  readonly stdout?: boolean;
  /**
   * In a process group of its own, so that {@link killGroup} reaches everything it started, and
   * killed if this process exits first (bench/'s long runs, where a failure must leave nothing).
   */
  readonly group?: boolean;
}

/** The one way the tests and bench/ start `paw` (or `node <entry>`) as a child process. */
export function spawnPaw(args: readonly string[], options: SpawnPawOptions): ChildProcess {
  const command = [...(options.prefix ?? []), process.execPath];
  const child = spawn(
    command[0] ?? process.execPath,
    [...command.slice(1), ...(options.entry ?? [PAW_BIN]), ...args],
    {
      cwd: options.cwd,
      env: pawEnvironment(options.env ?? {}, options.cwd),
      stdio: [
        options.stdin === true ? 'pipe' : 'ignore',
        options.stdout === false ? 'ignore' : 'pipe',
        'pipe',
      ],
      detached: options.group === true,
    },
  );
  if (options.group === true) rememberGroup(child);
  return child;
}

/**
 * Process groups started here and still running. Children in a group of their own would outlive
 * this process: if it exits without stopping them (a crash, process.exit), they are killed on
 * the way out.
 */
const liveGroups = new Set<number>();

function rememberGroup(child: ChildProcess): void {
  const pid = child.pid;
  if (pid === undefined) return;
  if (liveGroups.size === 0 && !groupHandlersInstalled) installGroupHandlers();
  liveGroups.add(pid);
  child.once('exit', () => liveGroups.delete(pid));
}

let groupHandlersInstalled = false;

/** Installed with the first group, so that a test process's own signal handling is untouched. */
function installGroupHandlers(): void {
  groupHandlersInstalled = true;
  process.once('exit', () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  });
  // Ctrl-C reaches only the terminal's foreground group, not the detached children. Exiting
  // (rather than dying of the signal) runs the 'exit' handlers: the one above, and the private
  // redis-server's, which kills that server.
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => process.exit(code));
  }
}

/** Signals a whole process group (a child spawned with `group`: its pid is the group's id). */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  if (pid <= 0) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

export interface PawProcessOptions {
  readonly cwd: string;
  /** PAW_* settings of the child (see {@link pawEnvironment}). */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to its standard input, which is then closed. */
  readonly stdin?: string;
  /** Called with each chunk of standard output as it arrives (for interactive flows). */
  readonly onStdout?: (chunk: string) => void;
}

/** A running `paw` child process with its output collected. */
export class PawProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Settles once both output streams are read to their end (after the exit). */
  readonly closed: Promise<number | null>;

  constructor(
    readonly args: readonly string[],
    options: PawProcessOptions,
  ) {
    this.child = spawnPaw(args, {
      cwd: options.cwd,
      ...(options.env === undefined ? {} : { env: options.env }),
      stdin: options.stdin !== undefined,
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      options.onStdout?.(chunk);
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    this.closed = new Promise((resolve, reject) => {
      this.child.once('error', reject);
      this.child.once('close', resolve);
    });
    // A spawn failure is the awaiting caller's to see; a PawProcess nobody awaits must not crash.
    this.closed.catch(() => undefined);
    this.child.stdin?.end(options.stdin);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Waits until standard error matches `pattern` (status lines and logs go there). */
  waitForStderr(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return this.waitFor('stderr', pattern, timeoutMs);
  }

  /** Waits until standard output matches `pattern`. */
  waitForStdout(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return this.waitFor('stdout', pattern, timeoutMs);
  }

  /** The JSON log records printed so far. */
  logRecords(): Record<string, unknown>[] {
    return this.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  }

  /** Sends `signal` and waits for the exit. */
  async stop(
    signal: NodeJS.Signals = 'SIGTERM',
  ): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    if (this.running) this.child.kill(signal);
    return this.exited;
  }

  private async waitFor(
    stream: 'stdout' | 'stderr',
    pattern: RegExp,
    timeoutMs: number,
  ): Promise<RegExpMatchArray> {
    try {
      return await eventually(
        String(pattern),
        () => {
          const match = pattern.exec(this[stream]);
          if (match !== null) return match;
          if (!this.running) {
            throw new Error(
              `paw ${this.args.join(' ')} exited before printing ${String(pattern)}:\n${this.stdout}\n${this.stderr}`,
            );
          }
          return undefined;
        },
        { timeoutMs },
      );
    } catch (error) {
      if (!this.running) throw error;
      throw new Error(`${(error as Error).message}:\n${this.stdout}\n${this.stderr}`);
    }
  }
}

export interface PawResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `paw args` to its end (both output streams read to their end) and returns what it printed. */
export async function runPaw(
  args: readonly string[],
  options: PawProcessOptions & {
    /** Called with the child once it is spawned (to kill one that hangs, say). */
    readonly onSpawn?: (child: ChildProcess) => void;
  },
): Promise<PawResult> {
  const paw = new PawProcess(args, options);
  options.onSpawn?.(paw.child);
  const code = await paw.closed;
  return { code, stdout: paw.stdout, stderr: paw.stderr };
}
