/**
 * `npm run bench -- longrun`: paw over months. (a) K consecutive nights through long-lived
 * `paw start` and `paw worker` processes, fired by a schedule against the simulator as its own
 * process; (b) an outcome store filled to N nights × M items through paw's recording path, then
 * measured. Issue 27's targets are printed beside each figure, met or missed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compiledPaw, withHeap } from './nightly/compiled-paw.js';
import { Progress } from './nightly/progress.js';
import { measureFilledStore } from './longrun/filled-store.js';
import { runLongNights } from './longrun/long-nights.js';
import { longrunText, type LongrunReport } from './longrun/longrun-report.js';
import {
  benchContext,
  finishContext,
  optionsOrUsage,
  writeJsonReport,
} from './support/bench-report.js';
import { machineSpeedMs } from './support/machine-speed.js';

const HELP = `usage: npm run bench -- longrun [options]

(a) --runs consecutive nights of a snapshot definition of --workloads workloads, fired every
--every seconds by paw start's scheduler, run by paw start and paw worker processes that stay up
throughout (compiled paw with its pod's heap), against the simulator as its own process at
--time-scale. Reports the RSS of each paw process after night 2 and after the last (target: at
most 10 % growth), Redis bytes per item, and the time of paw runs, paw outcomes --status failed
--since 30d and a full paw outcomes --export.
(b) An outcome store filled to --nights × --items through paw's own recording path, then: Redis
bytes per item (≤ 300 B), the longest Redis command of the trim of one night (≤ 50 ms), p99 of
GET /api/runs and /api/runs/<run> (≤ 100 ms), paw runs (≤ 1 s), paw outcomes --status failed
--since 30d (≤ 2 s) and a full export with its peak RSS.

options:
  --runs K          nights in (a) (default 8, at least 2)
  --workloads N     workloads a night in (a) (default 2000)
  --every S         seconds between fires in (a) (default 60; a divisor of 60, or whole minutes
                    dividing an hour); a fire while a night runs is skipped
  --time-scale X    platform time runs X times faster (default 20)
  --workers N       paw processes in (a), paw start included (default 3)
  --nights N        nights stored in (b) (default 90)
  --items M         items a night in (b) (default 10000)
  --requests N      GETs of each dashboard route in (b) (default 200)
  --only a|b        run one part only
  --json FILE       also write the figures as JSON to FILE
  --markdown        print the tables as markdown
  --help            this help

exit codes: 0 the benchmark completed (missed targets are reported, not failed); 1 a paw process
crashed or a command failed; 2 bad usage.
`;

interface LongrunOptions {
  runs: number;
  workloads: number;
  every: number;
  timeScale: number;
  workers: number;
  nights: number;
  items: number;
  requests: number;
  only: 'a' | 'b' | undefined;
  json: string | undefined;
  markdown: boolean;
}

function positive(name: string, value: string, minimum = 1): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < minimum)
    throw new Error(`--${name} ${value}: expected a whole number of at least ${minimum}`);
  return number;
}

function parse(args: string[]): LongrunOptions | undefined {
  const { values } = parseArgs({
    args,
    options: {
      runs: { type: 'string', default: '8' },
      workloads: { type: 'string', default: '2000' },
      every: { type: 'string', default: '60' },
      'time-scale': { type: 'string', default: '20' },
      workers: { type: 'string', default: '3' },
      nights: { type: 'string', default: '90' },
      items: { type: 'string', default: '10000' },
      requests: { type: 'string', default: '200' },
      only: { type: 'string' },
      json: { type: 'string' },
      markdown: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return undefined;
  if (values.only !== undefined && values.only !== 'a' && values.only !== 'b')
    throw new Error(`--only ${values.only}: expected a or b`);
  return {
    runs: positive('runs', values.runs, 2),
    workloads: positive('workloads', values.workloads),
    every: positive('every', values.every),
    timeScale: positive('time-scale', values['time-scale']),
    workers: positive('workers', values.workers),
    nights: positive('nights', values.nights, 2),
    items: positive('items', values.items),
    requests: positive('requests', values.requests),
    only: values.only,
    json: values.json,
    markdown: values.markdown,
  };
}

export async function run(args: string[]): Promise<void> {
  const options = optionsOrUsage(args, parse, HELP);
  if (options === undefined) return;
  const context = benchContext('longrun', args);
  const progress = new Progress('longrun');
  const speedBefore = await machineSpeedMs();
  const paw = withHeap(await compiledPaw(), 'pod');
  const dir = await mkdtemp(join(tmpdir(), 'paw-longrun-'));
  const sections: LongrunReport['sections'][number][] = [];
  const json: Record<string, unknown> = {};
  try {
    if (options.only !== 'b') {
      const nights = await runLongNights({
        command: paw,
        runs: options.runs,
        workloads: options.workloads,
        everySeconds: options.every,
        timeScale: options.timeScale,
        workerProcesses: options.workers,
        dir,
        progress,
      });
      sections.push({
        title: `(a) ${options.runs} nights of ${options.workloads} workloads, fired every ${options.every} s, through long-lived processes (${paw.describe})`,
        figures: nights.figures,
      });
      json['nights'] = nights.json;
    }
    if (options.only !== 'a') {
      const filled = await measureFilledStore({
        command: paw,
        nights: options.nights,
        items: options.items,
        requests: options.requests,
        dir,
        progress,
      });
      sections.push({
        title: `(b) an outcome store of ${options.nights} nights × ${options.items} items`,
        figures: filled.figures,
      });
      json['filled'] = filled.json;
    }
  } finally {
    await paw.remove();
    await rm(dir, { recursive: true, force: true });
  }
  const report: LongrunReport = {
    context: finishContext(context),
    speedLoopMs: { before: speedBefore, after: await machineSpeedMs() },
    sections,
  };
  process.stdout.write(longrunText(report, options.markdown));
  if (options.json !== undefined) await writeJsonReport(options.json, { ...report, ...json });
}
