import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { eventually } from '../../test/testkit/eventually.js';
import { PAW_BIN, spawnPaw } from '../../test/testkit/paw-process.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** One `paw scheduler` child process, its standard error (status lines and JSON logs) collected. */
export class SchedulerReplica {
  readonly child: ChildProcess;
  stderr = '';
  readonly exited: Promise<void>;
  private ended = false;

  constructor(
    readonly name: string,
    env: Record<string, string>,
    /** Options for node itself (`--cpu-prof`: the profile is written when it exits). */
    nodeOptions: readonly string[] = [],
  ) {
    this.child = spawnPaw(['scheduler'], {
      cwd: REPO_ROOT,
      env,
      entry: [...nodeOptions, PAW_BIN],
      stdout: false,
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => {
        this.ended = true;
        resolve();
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return !this.ended;
  }

  /** Waits for the `paw scheduler: ready` status line; throws with its output if it exits first. */
  async ready(timeoutMs: number): Promise<void> {
    await eventually(
      `${this.name} to be ready`,
      () => {
        if (/^paw scheduler: ready/m.test(this.stderr)) return true;
        if (this.ended) throw new Error(`${this.name} exited during start-up:\n${this.stderr}`);
        return false;
      },
      { timeoutMs, intervalMs: 100, detail: () => this.stderr },
    );
  }

  /** The JSON log records it printed. */
  logRecords(): Record<string, unknown>[] {
    const records: Record<string, unknown>[] = [];
    for (const line of this.stderr.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // A SIGKILLed replica can leave a half-written last line.
      }
    }
    return records;
  }

  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`). */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<void> {
    if (this.ended) return;
    this.child.kill(signal);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    await this.exited;
    clearTimeout(timer);
  }
}
