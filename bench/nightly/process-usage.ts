import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time and peak memory of a running process, from Linux's /proc: `utime + stime` of
 * /proc/<pid>/stat (every thread of the process, in clock ticks), `VmHWM` of
 * /proc/<pid>/status (the peak resident set since the process started) and the system-call
 * counts of /proc/<pid>/io. Read while the process
 * is still alive: a process that exited has no /proc entry.
 */
export interface ProcessUsage {
  readonly cpuMs: number;
  readonly peakRssMb: number;
  /** The resident set now (`VmRSS`), MB: what a long-lived process holds between nights. */
  readonly rssMb: number;
  /**
   * Read and write system calls so far (`syscr`, `syscw` of /proc/<pid>/io): every socket read
   * and write among them. Unlike CPU time they do not depend on what else the machine is doing,
   * and they are where paw's CPU goes (BENCHMARKS.md).
   */
  readonly readCalls: number;
  readonly writeCalls: number;
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
    const rssKb = Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? NaN);
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return {
      cpuMs: (ticks * 1000) / clockTicksPerSecond(),
      peakRssMb: peakKb / 1024,
      rssMb: rssKb / 1024,
      readCalls: Number(/^syscr: (\d+)/m.exec(io)?.[1] ?? NaN),
      writeCalls: Number(/^syscw: (\d+)/m.exec(io)?.[1] ?? NaN),
    };
  } catch {
    return undefined;
  }
}
