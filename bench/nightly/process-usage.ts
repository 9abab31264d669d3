import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time and peak memory of a running process, from Linux's /proc: `utime + stime` of
 * /proc/<pid>/stat (every thread of the process, in clock ticks) and `VmHWM` of
 * /proc/<pid>/status (the peak resident set since the process started). Read while the process
 * is still alive: a process that exited has no /proc entry.
 */
export interface ProcessUsage {
  readonly cpuMs: number;
  readonly peakRssMb: number;
}

let ticksPerSecond: number | undefined;

function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    } catch {
      ticksPerSecond = 100; // Linux's USER_HZ nearly everywhere.
    }
    if (!Number.isFinite(ticksPerSecond) || ticksPerSecond <= 0) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}

/** The usage of `pid` now, or undefined when the process is gone. */
export function processUsage(pid: number): ProcessUsage | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const peakKb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
    return { cpuMs: (ticks * 1000) / clockTicksPerSecond(), peakRssMb: peakKb / 1024 };
  } catch {
    return undefined;
  }
}
