import { renderTable } from '../support/bench-report.js';
import type { ContenderResult } from './contender-result.js';
import type { NightlyReport } from './nightly-report.js';

/** One figure of paw's night at each size (`npm run bench -- nightly --sizes …`). */
interface ScalingRow {
  readonly figure: string;
  /** Decimal places shown. */
  readonly digits: number;
  readonly values: readonly number[];
}

type Figure = readonly [
  figure: string,
  digits: number,
  value: (paw: ContenderResult, night: NightlyReport) => number | undefined,
];

const dashboardFigure =
  (path: (runId: boolean) => boolean, which: 'medianMs' | 'maxMs') =>
  (paw: ContenderResult): number | undefined =>
    paw.dashboard?.find((one) => path(one.path.startsWith('/api/runs/')))?.[which];

/**
 * The figures of the scaling report, in the order: what the night took, then what it
 * cost (paw's CPU, Redis, memory), then what an operator pays afterwards. Per-snapshot figures
 * that stay flat as N grows mean a cost linear in N.
 */
const FIGURES: readonly Figure[] = [
  ['makespan s', 1, (paw) => paw.makespanSeconds],
  ['× lower bound', 3, (paw) => paw.lowerBoundRatio],
  ['first trigger after the fire s', 2, (paw) => paw.triggerSeconds?.first],
  ['requests per snapshot', 2, (paw) => paw.requestsPerSnapshot],
  ['429s', 0, (paw) => paw.rateLimited],
  ['paw CPU ms per snapshot', 2, (paw) => paw.cpuMsPerSnapshot],
  ['paw CPU s in all', 1, (paw) => (paw.cpuMsPerSnapshot * paw.snapshots) / 1000],
  ['paw CPU while idle ms/s', 1, (paw) => paw.idleCpuMsPerSecond],
  [
    'paw CPU ms per snapshot beyond idle',
    2,
    (paw) =>
      paw.idleCpuMsPerSecond === undefined
        ? undefined
        : paw.cpuMsPerSnapshot - (paw.idleCpuMsPerSecond * paw.makespanSeconds) / paw.snapshots,
  ],
  ['redis-server CPU ms per snapshot', 2, (paw) => paw.redisCpuMsPerSnapshot],
  ['Redis used_memory after MB', 1, (paw) => paw.redisMb],
  ['Redis used_memory_peak MB', 1, (paw) => paw.redisPeakMb],
  ['Redis KB per snapshot (after)', 2, (paw) => ((paw.redisMb ?? NaN) * 1024) / paw.snapshots],
  ['peak RSS MB (largest paw process)', 0, (paw) => paw.peakRssMb],
  ['Redis commands per snapshot', 1, (paw) => paw.redisCommandsPerSnapshot],
  [
    'system calls per snapshot (read + write)',
    1,
    (paw) =>
      paw.systemCallsPerSnapshot === undefined
        ? undefined
        : paw.systemCallsPerSnapshot.read + paw.systemCallsPerSnapshot.write,
  ],
  ['paw outcomes --export jsonl s', 2, (paw) => paw.export?.seconds],
  ['export rows', 0, (paw) => paw.export?.rows],
  ['export CPU s', 2, (paw) => paw.export?.cpuSeconds],
  ['export peak RSS MB', 0, (paw) => paw.export?.peakRssMb],
  ['GET /api/runs median ms', 1, dashboardFigure((run) => !run, 'medianMs')],
  ['GET /api/runs max ms', 1, dashboardFigure((run) => !run, 'maxMs')],
  ['GET /api/runs/<run> median ms', 1, dashboardFigure((run) => run, 'medianMs')],
  ['GET /api/runs/<run> max ms', 1, dashboardFigure((run) => run, 'maxMs')],
  ['simulator peak RSS MB', 0, (_paw, night) => night.simulatorPeakRssMb],
  ['load average before (1 min)', 2, (_paw, night) => night.loadAverage.before[0]],
];

/** paw's figures at each size, one row per figure, in the order of `reports`. */
export function scalingRows(reports: readonly NightlyReport[]): ScalingRow[] {
  return FIGURES.map(([figure, digits, value]) => ({
    figure,
    digits,
    values: reports.map((night) => {
      const paw = night.contenders.find((contender) => contender.name === 'paw');
      return paw === undefined ? NaN : (value(paw, night) ?? NaN);
    }),
  }));
}

/**
 * The table: a column per size, and the last size's figure over the first's (N grows by the
 * ratio in its heading: a total linear in N grows by as much, a per-snapshot figure stays 1).
 */
export function scalingText(reports: readonly NightlyReport[], markdown: boolean): string {
  const sizes = reports.map((night) => night.settings.snapshots);
  const first = sizes[0] ?? NaN;
  const last = sizes.at(-1) ?? NaN;
  const headers = [
    'figure (paw)',
    ...sizes.map((size) => `N = ${size.toLocaleString('en-US')}`),
    `last ÷ first (N ×${fixed(last / first, 0)})`,
  ];
  const rows = scalingRows(reports).map((row) => [
    row.figure,
    ...row.values.map((value) => fixed(value, row.digits)),
    fixed((row.values.at(-1) ?? NaN) / (row.values[0] ?? NaN), 2),
  ]);
  const rate = reports[0]?.settings.requestsPerSecond;
  return [
    '',
    `scaling: paw's night at ${sizes.join(', ')} snapshots, the platform at ${String(rate)} requests/s ` +
      '(one simulator and one private Redis per night)',
    renderTable(headers, rows, markdown),
    '',
  ].join('\n');
}

/** The `--json` form: sizes, and each figure's values in the same order. */
export function scalingJson(reports: readonly NightlyReport[]): unknown {
  return {
    sizes: reports.map((night) => night.settings.snapshots),
    figures: Object.fromEntries(
      scalingRows(reports).map((row) => [
        row.figure,
        row.values.map((value) =>
          Number.isFinite(value) ? Math.round(value * 10 ** row.digits) / 10 ** row.digits : null,
        ),
      ]),
    ),
  };
}

function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a';
}
