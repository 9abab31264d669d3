import type { JobDefinition } from '../../definitions/job-definition.js';
import { previewRun, type RunPreview } from '../../job-kinds/run-preview.js';
import { describePause } from '../../platform/records/sla-domain.js';
import { printable } from '../../shared/printable.js';
import { renderTable } from '../output/table.js';
import { ExitCode } from '../exit-codes.js';
import { withPlatformClient } from '../with-platform-client.js';

/**
 * `paw run <id> --dry-run`: what a run would do now, from the platform's answers (reads only:
 * nothing is triggered, paused, rotated, written or recorded). Exit 1 when the run would fail
 * as a whole.
 */
export async function printPreview(definition: JobDefinition, json: boolean): Promise<void> {
  const preview = await withPlatformClient({ json }, ({ client }) =>
    previewRun(definition, client),
  );
  const fails = wouldFail(preview);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ id: definition.id, dryRun: true, wouldFail: fails, ...preview }, null, 2)}\n`,
    );
  } else {
    process.stdout.write(`${describe(definition.id, preview)}\n`);
  }
  if (fails !== undefined) process.exitCode = ExitCode.failure;
}

function wouldFail(preview: RunPreview): string | undefined {
  switch (preview.kind) {
    case 'snapshot':
      return preview.runProblem;
    case 'sla-window':
      return preview.targets.length === 0 && preview.problems.length > 0
        ? 'no SLA Domain of the window can be paused'
        : undefined;
    case 'rotate-secret':
      if (preview.accountName === undefined) {
        return `no service account has the client id ${preview.clientId}`;
      }
      return preview.sinkProblem;
  }
}

/**
 * The preview as text. Every line but the tables (which escape their cells) is escaped as a
 * whole: it names what the platform answered (an account's name, a workload's), which may hold
 * escape sequences or a line feed that would forge a line.
 */
function describe(id: string, preview: RunPreview): string {
  const lines: string[] = [];
  const say = (...texts: string[]): void => {
    for (const text of texts) lines.push(printable(text));
  };
  say(`paw run ${id} --dry-run: nothing was triggered, paused, rotated or recorded`);
  switch (preview.kind) {
    case 'snapshot': {
      say(`retention: ${preview.retention}`);
      if (preview.runProblem !== undefined) say(`the run would fail: ${preview.runProblem}`);
      say(
        `${preview.snapshot.length} to snapshot, ${preview.skip.length} skipped, ` +
          `${preview.unknownIds.length} unknown id(s)`,
      );
      const rows = [
        ...preview.snapshot.map((w) => ['snapshot', w.name, w.type, w.id, '']),
        ...preview.skip.map((w) => ['skip', w.name, w.type, w.id, w.reason]),
        ...preview.unknownIds.map((u) => ['fail', '', '', u.id, u.message]),
      ];
      if (rows.length > 0) lines.push(renderTable(['DOES', 'NAME', 'TYPE', 'ID', 'WHY'], rows));
      break;
    }
    case 'sla-window': {
      say(`for ${preview.duration}:`);
      const rows = [
        ...preview.targets.map((t) => [
          t.action === 'pause' ? 'pause' : 'leave',
          t.slaDomainName,
          t.clusterName,
          t.action === 'pause'
            ? 'then resume at the end'
            : `already ${t.pauseStatus}: paused by ${t.pause === undefined ? 'someone else' : describePause(t.pause)}, left as it is and not resumed`,
        ]),
        ...preview.problems.map((p) => [p.status, p.slaDomainName, p.clusterId ?? '', p.reason]),
      ];
      if (rows.length > 0) lines.push(renderTable(['DOES', 'SLA DOMAIN', 'CLUSTER', 'WHY'], rows));
      break;
    }
    case 'rotate-secret':
      say(
        `rotate the secret of ${preview.accountName ?? '(no such account)'} (${preview.clientId})`,
        `write the new credentials to ${preview.sink}` +
          (preview.sinkProblem === undefined ? '' : `: refused, ${preview.sinkProblem}`),
      );
      break;
  }
  const fails = wouldFail(preview);
  if (fails !== undefined && preview.kind !== 'snapshot') say(`the run would fail: ${fails}`);
  return lines.join('\n');
}
