import { Command } from 'commander';
import type { RunRecord } from '../../outcomes/outcome-records.js';
import { OUTCOME_STATUSES, type OutcomeStatus } from '../../outcomes/outcome-status.js';
import { formatDuration } from '../../shared/duration.js';
import { loadCommandSettings } from '../command-settings.js';
import { fireTimeQuery, withFireTimeRange } from '../fire-time-range.js';
import { choiceList, positiveInteger } from '../option-parsers.js';
import { withCommandRedis } from '../redis-session.js';
import { renderTable, truncate } from '../output/table.js';

interface RunsOptions {
  definition?: string;
  status?: OutcomeStatus[];
  since?: Date;
  until?: Date;
  limit: number;
  json?: boolean;
}

/** `paw runs`: the recorded runs, newest first, with their item counts. */
export function runsCommand(): Command {
  return withFireTimeRange(
    new Command('runs')
      .description('list recorded runs, newest first, with their item counts')
      .option('--definition <id>', 'only runs of this job definition')
      .option(
        '--status <list>',
        `only runs in these statuses (comma-separated: ${OUTCOME_STATUSES.join(', ')})`,
        choiceList(OUTCOME_STATUSES),
      ),
  )
    .option('--limit <n>', 'show at most this many runs', positiveInteger, 50)
    .option('--json', 'print the runs as JSON')
    .action(async (options: RunsOptions) => {
      const { settings } = await loadCommandSettings();
      const runs = await withCommandRedis(settings, (_redis, { queries }) =>
        queries.listRuns({
          ...(options.definition === undefined ? {} : { definitionId: options.definition }),
          ...(options.status === undefined ? {} : { statuses: options.status }),
          ...fireTimeQuery(options),
          // One more than asked, to know whether there are more.
          limit: options.limit + 1,
        }),
      );
      const more = runs.length > options.limit;
      if (more) runs.pop();
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
        return;
      }
      if (runs.length === 0) {
        process.stdout.write('no runs recorded that match\n');
        return;
      }
      process.stdout.write(
        `${renderTable(
          [
            'RUN',
            'KIND',
            'FIRED (UTC)',
            'TRIGGER',
            'STATUS',
            'ITEMS',
            'OK',
            'FAILED',
            'TIMED OUT',
            'SKIPPED',
            'TOOK',
            'NOTE',
          ],
          runs.map(runRow),
        )}\n`,
      );
      if (more) {
        process.stderr.write(`(the newest ${options.limit}; use --limit or --since for more)\n`);
      }
    });
}

function runRow(run: RunRecord): string[] {
  const took =
    run.startedAt !== undefined && run.finishedAt !== undefined
      ? formatDuration(Date.parse(run.finishedAt) - Date.parse(run.startedAt))
      : '';
  return [
    run.runId,
    run.kind,
    run.fireTime.replace('T', ' ').replace(/\.000Z$|Z$/, ''),
    run.trigger,
    run.status,
    String(run.counts.total),
    String(run.counts.succeeded),
    String(run.counts.failed),
    String(run.counts.timedOut),
    String(run.counts.skipped),
    took,
    truncate(run.reason ?? run.errorMessage ?? '', 60),
  ];
}
