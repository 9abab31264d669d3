import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SnapshotApi } from './snapshot-api.js';

/**
 * What both scripts share: their arguments (`--credentials FILE --workloads FILE --poll-ms N`,
 * the workloads file holding one id a line) and the one JSON line they print at the end, with
 * their own CPU time and peak memory (`process.cpuUsage()` from after start-up,
 * `process.resourceUsage().maxRSS`).
 */
export async function runScript(
  snapshotAll: (api: SnapshotApi, workloadIds: readonly string[]) => Promise<string[]>,
): Promise<void> {
  const { values } = parseArgs({
    options: {
      credentials: { type: 'string' },
      workloads: { type: 'string' },
      'poll-ms': { type: 'string', default: '5000' },
    },
  });
  if (values.credentials === undefined || values.workloads === undefined) {
    process.stderr.write('usage: <script> --credentials FILE --workloads FILE [--poll-ms 5000]\n');
    process.exit(2);
  }
  const workloadIds = readFileSync(values.workloads, 'utf8').split('\n').filter(Boolean);
  const cpuBefore = process.cpuUsage();
  const startedAt = Date.now();
  const api = await SnapshotApi.connect(values.credentials, Number(values['poll-ms']));
  const outcomes = await snapshotAll(api, workloadIds);
  const makespanMs = Date.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  const statuses: Record<string, number> = {};
  for (const status of outcomes) statuses[status] = (statuses[status] ?? 0) + 1;
  process.stdout.write(
    `${JSON.stringify({
      snapshots: outcomes.length,
      makespanMs,
      cpuMs: (cpu.user + cpu.system) / 1000,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      tooManyRequests: api.tooManyRequests,
      statuses,
    })}\n`,
  );
}
