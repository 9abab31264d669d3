import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PAW = fileURLToPath(new URL('../../../bin/paw.js', import.meta.url));

export interface PawResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  /** PAW_* variables; nothing else from the test's environment leaks in but PATH and HOME. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly stdin?: string;
  /** Called with each chunk of standard output as it arrives (for interactive flows). */
  readonly onStdout?: (chunk: string) => void;
  /** Called with the child once it is spawned (to kill one that hangs, say). */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** Runs `node bin/paw.js ...args` as a real child process and collects what it prints. */
export function runPaw(args: readonly string[], options: RunOptions): Promise<PawResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PAW, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: options.cwd, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    options.onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      options.onStdout?.(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
