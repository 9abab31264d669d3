import type { ContenderResult } from './contender-result.js';
import { LOWER_BOUND_FORMULA, type LowerBound } from './lower-bound.js';
import type { NightLatency, NightSettings } from './night-simulator-settings.js';
import { SLOW_MS } from './simulator-stalls.js';

export interface NightlyReport {
  readonly command: string;
  readonly machine: {
    cpus: number;
    model: string;
    node: string;
    /** machineSpeedMs (bench/support/machine-speed.ts) before and after the night: lower is faster. */
    speedLoopMs: { before: number; after: number };
  };
  readonly loadAverage: { before: number[]; after: number[] };
  readonly settings: NightSettings & { workloadsSeeded: number; clusterIds: readonly string[] };
  readonly pawSettings: Record<string, string>;
  readonly lowerBoundSeconds: number;
  readonly lowerBound: LowerBound & { formula: string };
  /** The simulator process's peak resident set (VmHWM) over the whole night, MB. */
  readonly simulatorPeakRssMb: number;
  readonly contenders: readonly ContenderResult[];
  readonly targets: readonly { target: string; met: boolean; measured: string }[];
}

/** The `--json` document: the figures the issue asks for, then the rest of the report. */
export function reportJson(report: NightlyReport): unknown {
  const byName = Object.fromEntries(
    report.contenders.map((contender) => [
      contender.name,
      {
        makespanSeconds: round(contender.makespanSeconds),
        requestsPerSnapshot: round(contender.requestsPerSnapshot, 2),
        rateLimited: contender.rateLimited,
        cpuMsPerSnapshot: round(contender.cpuMsPerSnapshot, 2),
        ...(contender.idleCpuMsPerSecond === undefined
          ? {}
          : { idleCpuMsPerSecond: round(contender.idleCpuMsPerSecond, 1) }),
        peakRssMb: round(contender.peakRssMb),
        ...(contender.peakRssMbByProcess === undefined
          ? {}
          : {
              peakRssMbByProcess: Object.fromEntries(
                Object.entries(contender.peakRssMbByProcess).map(([name, mb]) => [name, round(mb)]),
              ),
            }),
        description: contender.description,
        ...(contender.simulatorStalls === undefined
          ? {}
          : {
              simulatorStalls: {
                ...contender.simulatorStalls,
                longestAnswerMs: round(contender.simulatorStalls.longestAnswerMs),
                longestProbeLagMs: round(contender.simulatorStalls.longestProbeLagMs),
              },
            }),
        ...(contender.extrapolatedFrom === undefined
          ? {}
          : {
              extrapolatedFrom: contender.extrapolatedFrom,
              measuredMakespanSeconds: round(contender.measuredMakespanSeconds),
            }),
        statuses: contender.statuses,
        requestsByOperation: contender.requestsByOperation,
        processes: contender.processes,
        ...(contender.redisMb === undefined ? {} : { redisMb: round(contender.redisMb) }),
        ...(contender.redisCpuMsPerSnapshot === undefined
          ? {}
          : { redisCpuMsPerSnapshot: round(contender.redisCpuMsPerSnapshot, 2) }),
        ...(contender.redisCommandsPerSnapshot === undefined
          ? {}
          : {
              systemCallsPerSnapshot: {
                read: round(contender.systemCallsPerSnapshot?.read ?? NaN, 1),
                write: round(contender.systemCallsPerSnapshot?.write ?? NaN, 1),
              },
              redisCommandsPerSnapshot: round(contender.redisCommandsPerSnapshot, 1),
              redisScriptsPerSnapshot: round(contender.redisScriptsPerSnapshot ?? NaN, 2),
              redisCommandsByName: contender.redisCommandsByName,
            }),
        ...(contender.lowerBoundRatio === undefined
          ? {}
          : { lowerBoundRatio: round(contender.lowerBoundRatio, 3) }),
        ...(contender.triggerSeconds === undefined
          ? {}
          : {
              triggerSeconds: {
                first: round(contender.triggerSeconds.first, 2),
                last: round(contender.triggerSeconds.last, 1),
                requestsPerSecond: round(contender.triggerSeconds.requestsPerSecond ?? NaN, 1),
              },
            }),
        ...(contender.redisPeakMb === undefined
          ? {}
          : { redisPeakMb: round(contender.redisPeakMb) }),
        ...(contender.export === undefined
          ? {}
          : {
              export: {
                seconds: round(contender.export.seconds, 2),
                rows: contender.export.rows,
                megabytes: round(contender.export.megabytes),
                ...(contender.export.cpuSeconds === undefined
                  ? {}
                  : { cpuSeconds: round(contender.export.cpuSeconds, 2) }),
                ...(contender.export.peakRssMb === undefined
                  ? {}
                  : { peakRssMb: round(contender.export.peakRssMb) }),
              },
            }),
        ...(contender.dashboard === undefined
          ? {}
          : {
              dashboard: contender.dashboard.map((one) => ({
                path: one.path,
                requests: one.requests,
                medianMs: round(one.medianMs, 1),
                maxMs: round(one.maxMs, 1),
                kilobytes: round(one.kilobytes),
              })),
            }),
      },
    ]),
  );
  return {
    lowerBoundSeconds: round(report.lowerBoundSeconds),
    ...byName,
    lowerBound: report.lowerBound,
    simulatorPeakRssMb: round(report.simulatorPeakRssMb),
    targets: report.targets,
    settings: report.settings,
    pawSettings: report.pawSettings,
    loadAverage: report.loadAverage,
    machine: report.machine,
    command: report.command,
  };
}

/** The report as text; `markdown` gives a table to paste into BENCHMARKS.md. */
export function reportText(report: NightlyReport, markdown: boolean): string {
  const s = report.settings;
  const header = [
    'contender',
    'makespan s',
    '× lower bound',
    'requests/snapshot',
    '429s',
    'statuses',
    'CPU ms/snapshot',
    'peak RSS MB',
    'Redis MB (CPU ms/snapshot)',
  ];
  const rows = report.contenders.map((contender) => [
    contender.extrapolatedFrom === undefined
      ? contender.name
      : `${contender.name} (extrapolated from ${contender.extrapolatedFrom})`,
    contender.extrapolatedFrom === undefined
      ? fixed(contender.makespanSeconds, 1)
      : `${fixed(contender.makespanSeconds, 0)} (${fixed(contender.measuredMakespanSeconds, 1)} measured)`,
    fixed(contender.makespanSeconds / report.lowerBoundSeconds, 2),
    fixed(contender.requestsPerSnapshot, 2),
    String(contender.rateLimited),
    Object.entries(contender.statuses)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status} ${count}`)
      .join(', '),
    fixed(contender.cpuMsPerSnapshot, 2),
    `${fixed(contender.peakRssMb, 0)}${contender.processes > 1 ? ` (max of ${contender.processes})` : ''}`,
    contender.redisMb === undefined
      ? ''
      : `${fixed(contender.redisMb, 1)} (${fixed(contender.redisCpuMsPerSnapshot ?? NaN, 2)})`,
  ]);
  const table = markdown ? markdownTable(header, rows) : plainTable(header, rows);
  const bound = report.lowerBound;
  const lines = [
    `nightly benchmark (${report.command})`,
    `machine: ${report.machine.cpus} CPUs (${report.machine.model}), Node ${report.machine.node}; ` +
      `load average before ${report.loadAverage.before.join(' ')}, after ${report.loadAverage.after.join(' ')}; ` +
      `speed loop ${fixed(report.machine.speedLoopMs.before, 0)} ms before, ${fixed(report.machine.speedLoopMs.after, 0)} ms after ` +
      `(bench/support/machine-speed.ts, lower is faster: compare CPU figures only at similar readings)`,
    `simulator (its own process): ${s.snapshots} snapshots (of ${s.workloadsSeeded} seeded workloads, ` +
      `seed ${s.seed}: the VMs and databases of ${s.clusterIds.length} Connected clusters of ${s.clusters}), ` +
      `timeScale ${s.timeScale}, rate limit ${s.requestsPerSecond}/s (burst ${s.burst}), ${latencyText(s.latency)} per request, ` +
      `${s.concurrencyPerCluster} snapshots at once per cluster, durations lognormal median ${s.durationSeconds.median} s ` +
      `sigma ${s.durationSeconds.sigma} min ${s.durationSeconds.min} s of platform time ` +
      `(${fixed((s.durationSeconds.median * 1000) / s.timeScale, 0)} ms real); failure 3%, cancel 1%`,
    `paw: ${Object.entries(report.pawSettings)
      .map(([key, value]) => `${key}=${value}`)
      .join(' ')}`,
    `scripts poll every 5 s of platform time (${fixed(5000 / s.timeScale, 0)} ms real); ` +
      'a sampled script’s makespan is its measured makespan × N / sample',
    `lower bound: ${fixed(report.lowerBoundSeconds, 1)} s (requests ${fixed(bound.requestsSeconds, 1)} s, ` +
      `snapshots ${fixed(bound.snapshotsSeconds, 1)} s), from paw's run`,
    `  ${LOWER_BOUND_FORMULA}`,
    'makespan: paw from the run record’s createdAt to its finishedAt; a script from its first request to its exit. ' +
      'Requests, 429s and statuses are what the simulator saw (/_sim/stats, /_sim/jobs). ' +
      'CPU: paw processes’ utime+stime from /proc after start-up; scripts’ process.cpuUsage() after start-up. ' +
      'Peak RSS: VmHWM (paw), resourceUsage().maxRSS (scripts). ' +
      'redis-server’s own CPU is not in paw’s; it is shown beside its memory.',
    '',
    table,
    ...report.contenders
      .filter((contender) => contender.redisCommandsPerSnapshot !== undefined)
      .map(
        (contender) =>
          `${contender.name}: ${fixed(contender.redisCommandsPerSnapshot ?? NaN, 1)} Redis commands per snapshot ` +
          `(${fixed(contender.redisScriptsPerSnapshot ?? NaN, 2)} of them Lua scripts; INFO commandstats, ` +
          'which counts the commands inside a script too); ' +
          `${fixed(contender.systemCallsPerSnapshot?.read ?? NaN, 1)} read and ` +
          `${fixed(contender.systemCallsPerSnapshot?.write ?? NaN, 1)} write system calls per snapshot ` +
          '(its processes’ /proc/<pid>/io)',
      ),
    ...report.contenders.flatMap(afterTheNight),
    `simulator: ${fixed(report.simulatorPeakRssMb, 0)} MB peak RSS (VmHWM of its process over the night)`,
    '',
    'targets for paw:',
    ...report.targets.map(
      (target) => `  ${target.met ? 'met   ' : 'MISSED'} ${target.target}: ${target.measured}`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** paw's lines on what the night cost beyond its makespan: fan-out, Redis's peak, export, API. */
function afterTheNight(contender: ContenderResult): string[] {
  const lines: string[] = [];
  if (contender.peakRssMbByProcess !== undefined)
    lines.push(
      `${contender.name}: peak RSS ${Object.entries(contender.peakRssMbByProcess)
        .map(([name, mb]) => `${name} ${fixed(mb, 0)} MB`)
        .join(', ')} (${contender.description})`,
    );
  const stalls = contender.simulatorStalls;
  if (stalls !== undefined)
    lines.push(
      `${contender.name}: the simulator's longest answer to a probe every 100 ms during the night ` +
        `${fixed(stalls.longestAnswerMs, 0)} ms (${stalls.slowAnswers} of ${stalls.probes} over ${SLOW_MS} ms; ` +
        `the probe's own timer at most ${fixed(stalls.longestProbeLagMs, 0)} ms late): a stall over a second ` +
        'turns requests within the rate into 429s (its bucket counts them when it reads them)',
    );
  if (contender.idleCpuMsPerSecond !== undefined)
    lines.push(
      `${contender.name}: ${fixed(contender.idleCpuMsPerSecond, 1)} ms of CPU per second while idle ` +
        `(its ${contender.processes} processes, before the fire), ` +
        `${fixed((contender.idleCpuMsPerSecond * contender.makespanSeconds) / contender.snapshots, 2)} ms per snapshot over this makespan`,
    );
  if (contender.triggerSeconds !== undefined)
    lines.push(
      `${contender.name}: first snapshot triggered ${fixed(contender.triggerSeconds.first, 2)} s after the fire ` +
        `(listing the workloads, recording the items, adding the jobs), the last at ${fixed(contender.triggerSeconds.last, 1)} s, ` +
        `${fixed(contender.triggerSeconds.requestsPerSecond ?? NaN, 1)} requests a second reaching the platform between the two; ` +
        `Redis used_memory_peak ${fixed(contender.redisPeakMb ?? NaN, 1)} MB`,
    );
  const exported = contender.export;
  if (exported !== undefined)
    lines.push(
      `${contender.name}: paw outcomes --run <run> --export jsonl --out FILE: ${fixed(exported.seconds, 2)} s wall ` +
        `(start-up included) for ${exported.rows} rows${exported.rows === contender.snapshots ? ' (= N)' : ` (NOT N = ${contender.snapshots})`}, ` +
        `${fixed(exported.megabytes, 1)} MB` +
        (exported.cpuSeconds === undefined
          ? ''
          : `; ${fixed(exported.cpuSeconds, 2)} s CPU, ${fixed(exported.peakRssMb ?? NaN, 0)} MB peak RSS (GNU time)`),
    );
  for (const one of contender.dashboard ?? [])
    lines.push(
      `${contender.name}: dashboard GET ${one.path}: median ${fixed(one.medianMs, 1)} ms, max ${fixed(one.maxMs, 1)} ms ` +
        `of ${one.requests} requests (${fixed(one.kilobytes, 1)} KB)`,
    );
  return lines;
}

function plainTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}

function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** A request's latency as the report says it: `20 ms`, or `300–2500 ms (uniform)`. */
function latencyText(latency: NightLatency): string {
  return latency.minMs === latency.maxMs
    ? `${latency.minMs} ms`
    : `${latency.minMs}–${latency.maxMs} ms (uniform)`;
}
