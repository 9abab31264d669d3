import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';

/** `paw sim` in its own process, so its CPU is nobody's client time. */
export interface SimulatorProcess {
  readonly baseUrl: string;
  /** The admin service account's credentials file (mode 0600). */
  readonly credentialsFile: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

export async function startSimulatorProcess(
  options: SimulatorOptionsInput,
  dir: string,
): Promise<SimulatorProcess> {
  const configFile = join(dir, 'sim.json'); // JSON is YAML: `paw sim --config` reads it.
  const credentialsFile = join(dir, 'sa.json');
  await writeFile(configFile, JSON.stringify(options, null, 2));
  const child = spawn(
    process.execPath,
    [
      'bin/paw.js',
      'sim',
      '--config',
      configFile,
      '--credentials-out',
      credentialsFile,
      '--json',
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const fixtures = await firstJsonLine(child);
  return {
    baseUrl: fixtures.baseUrl,
    credentialsFile,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function firstJsonLine(child: ChildProcess): Promise<{ baseUrl: string }> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let done = false;
    // Listening (not iterating) keeps the pipe open and drained after the first line.
    child.stdout?.on('data', (chunk: Buffer) => {
      if (done) return;
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      done = true;
      try {
        resolve(JSON.parse(buffered.slice(0, newline)) as { baseUrl: string });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
    child.once('exit', (code) => {
      if (!done)
        reject(new Error(`paw sim exited (code ${String(code)}) before printing its fixtures`));
    });
  });
}
