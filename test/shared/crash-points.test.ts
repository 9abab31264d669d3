import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const tsxLoader = fileURLToPath(import.meta.resolve('tsx'));
const module = fileURLToPath(new URL('../../src/shared/crash-points.ts', import.meta.url));

/** Runs a child that reaches `point` five times, printing after each reach. */
function runChild(spec: string): Promise<{ signal: NodeJS.Signals | null; stdout: string }> {
  const script = `
    const { CrashPoints } = await import(${JSON.stringify(module)});
    const points = new CrashPoints(${JSON.stringify(spec === '' ? [] : [spec])});
    for (let i = 1; i <= 5; i++) { points.reach('demo.step'); process.stdout.write(i + ';'); }
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      '--import',
      tsxLoader,
      '--input-type=module',
      '-e',
      script,
    ]);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (_code, signal) => resolve({ signal, stdout }));
  });
}

describe('CrashPoints', () => {
  it('kills the process with SIGKILL the n-th time the point is reached', async () => {
    const result = await runChild('demo.step@3');
    expect(result.signal).toBe('SIGKILL');
    expect(result.stdout).toBe('1;2;');
  });

  it('does nothing when no crash point is configured', async () => {
    const result = await runChild('');
    expect(result.signal).toBeNull();
    expect(result.stdout).toBe('1;2;3;4;5;');
  });
});
