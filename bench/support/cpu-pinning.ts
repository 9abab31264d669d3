import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

/**
 * Pins each process to its own CPU with `taskset`, so that a load generator and what it measures
 * do not take turns on one core. Returns a description for the report, or why it did not pin.
 */
export function pinProcesses(
  assignments: readonly { pid: number; cpu: number; name: string }[],
): string {
  const needed = Math.max(...assignments.map((entry) => entry.cpu)) + 1;
  if (cpus().length < needed) return `not pinned (${cpus().length} CPU, ${needed} needed)`;
  try {
    for (const { pid, cpu } of assignments) {
      execFileSync('taskset', ['-a', '-cp', String(cpu), String(pid)], { stdio: 'ignore' });
    }
  } catch {
    return 'not pinned (no taskset)';
  }
  return assignments.map(({ name, cpu }) => `${name} on CPU ${cpu}`).join(', ') + ' (taskset)';
}
