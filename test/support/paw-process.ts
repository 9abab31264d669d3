import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PAW_BIN = fileURLToPath(new URL('../../bin/paw.js', import.meta.url));

/** The environment for a paw child process: the test's own, minus any PAW_* it happens to have. */
function childEnvironment(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('PAW_')) base[name] = value;
  }
  // The ops server is off unless a test asks for it: replicas in one test would share port 8090.
  return { ...base, PAW_LOG_LEVEL: 'info', PAW_HTTP_PORT: '0', ...env };
}

/** A running `paw` child process with its output collected. */
export class PawProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(args: readonly string[], options: { env: Record<string, string>; cwd: string }) {
    this.child = spawn(process.execPath, [PAW_BIN, ...args], {
      cwd: options.cwd,
      env: childEnvironment(options.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  /** Waits until standard error matches `pattern` (status lines and logs go there). */
  async waitForStderr(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const started = Date.now();
    for (;;) {
      const match = pattern.exec(this.stderr);
      if (match !== null) return match;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`paw exited before printing ${String(pattern)}:\n${this.stderr}`);
      }
      if (Date.now() - started > timeoutMs) {
        throw new Error(`timed out waiting for ${String(pattern)}:\n${this.stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
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
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

/** Runs `paw args` to completion. */
export async function runPaw(
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const paw = new PawProcess(args, options);
  const { code } = await paw.exited;
  return { code, stdout: paw.stdout, stderr: paw.stderr };
}
