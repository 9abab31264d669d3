import { Command } from 'commander';
import {
  checkOptionsFrom,
  findDefinition,
  loadDefinitions,
} from '../../definitions/load-definitions.js';
import {
  COVERAGE_STATES,
  coverageReport,
  snapshotDefinitions,
  uncoveredWorkloads,
  type CoverageReport,
} from '../../job-kinds/snapshot/coverage/coverage-report.js';
import { UsageError } from '../../shared/usage-error.js';
import { ExitCode } from '../exit-codes.js';
import { parseDurationOption } from '../option-parsers.js';
import { renderTable, truncate } from '../output/table.js';
import { withCommandRedis } from '../redis-session.js';
import { withPlatformClient, withPlatformOptions } from '../with-platform-client.js';

interface CoverageOptions {
  jobs?: string;
  json?: boolean;
  stale?: number;
  uncovered?: boolean;
  credentials?: string;
  verbose?: boolean;
}

/**
 * `paw coverage [id]`: whether every workload the snapshot definitions cover is protected now,
 * and which are not, since when. Reads only: the platform (targets resolved as a run would) and
 * the coverage index the runs keep.
 */
export function coverageCommand(): Command {
  return withPlatformOptions(
    new Command('coverage')
      .description(
        'is every workload the snapshot definitions cover protected now? which are not, since when',
      )
      .argument('[id]', 'only this snapshot definition')
      .option(
        '--jobs <dir>',
        'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)',
      )
      .option(
        '--stale <duration>',
        "a success older than this is stale (default: the definition's last fire, plus its jitter and maxWait)",
        parseDurationOption,
      )
      .option(
        '--uncovered',
        "list the platform's VMs and SQL Server databases that no enabled snapshot definition covers",
      ),
  )
    .addHelpText(
      'after',
      '\nStates: protected (its last snapshot succeeded since the last due fire), failing (its last\n' +
        'item did not succeed: see failureStreak and reason), stale (succeeded once, no run reached\n' +
        'it since), skipped (paw cannot snapshot it: reason and since when), never (no run yet).\n' +
        '\nExamples:\n' +
        '  $ paw coverage                      # every snapshot definition\n' +
        '  $ paw coverage nightly-vms --json   # one, for a script\n' +
        '  $ paw coverage --stale 36h          # a success older than 36 h is stale\n' +
        '  $ paw coverage --uncovered          # VMs and databases no definition covers\n' +
        '\nExit codes: 0 every workload is protected (with --uncovered: none is uncovered);\n' +
        '1 some are not, or the platform or Redis failed; 2 bad usage.',
    )
    .action(async (id: string | undefined, options: CoverageOptions) => {
      await withPlatformClient(options, async ({ client, loaded }) => {
        const { settings } = loaded;
        const dir = options.jobs ?? settings.jobs.dir;
        const loadedDefinitions = await loadDefinitions(dir, checkOptionsFrom(settings));
        let definitions = snapshotDefinitions(loadedDefinitions.map((found) => found.definition));
        if (id !== undefined) {
          const { definition } = findDefinition(loadedDefinitions, id, dir);
          if (definition.kind !== 'snapshot') {
            throw new UsageError(
              `${id} is a ${definition.kind} definition; coverage is about snapshot definitions ` +
                `(${definitions.map((d) => d.id).join(', ') || 'none in ' + dir})`,
            );
          }
          definitions = [definition];
        }
        if (options.uncovered === true) {
          const uncovered = await uncoveredWorkloads(definitions, client);
          if (options.json === true) {
            process.stdout.write(`${JSON.stringify({ uncovered }, null, 2)}\n`);
          } else if (uncovered.length === 0) {
            process.stdout.write('every VM and SQL Server database is covered by a definition\n');
          } else {
            process.stdout.write(
              `${renderTable(
                ['ID', 'NAME', 'TYPE', 'CLUSTER'],
                uncovered.map((w) => [w.id, w.name, w.type, w.clusterName ?? w.clusterId ?? '']),
              )}\n`,
            );
          }
          if (uncovered.length > 0) process.exitCode = ExitCode.failure;
          return;
        }
        const report = await withCommandRedis(settings, (_redis, outcomes) =>
          coverageReport(definitions, client, outcomes.coverage, {
            now: new Date(),
            staleAfterMs: options.stale,
          }),
        );
        process.stdout.write(
          options.json === true ? `${JSON.stringify(report, null, 2)}\n` : describe(report),
        );
        if (!report.allProtected) process.exitCode = ExitCode.failure;
      });
    });
}

/** Each definition's counts, then its workloads that are not protected, worst first. */
function describe(report: CoverageReport): string {
  if (report.definitions.length === 0) return 'no snapshot definitions\n';
  const lines: string[] = [];
  for (const definition of report.definitions) {
    const counts = COVERAGE_STATES.map((state) => `${definition.counts[state]} ${state}`);
    lines.push(
      `${definition.definitionId}${definition.enabled ? '' : ' (disabled)'}: ` +
        `${definition.workloads.length} workloads: ${counts.join(', ')}`,
    );
    const rows = definition.workloads
      .filter((row) => row.state !== 'protected')
      .sort(
        (a, b) =>
          COVERAGE_STATES.indexOf(a.state) - COVERAGE_STATES.indexOf(b.state) ||
          b.failureStreak - a.failureStreak,
      );
    if (rows.length > 0) {
      lines.push(
        renderTable(
          ['STATE', 'STREAK', 'NAME', 'WORKLOAD', 'LAST SUCCESS', 'SINCE', 'LAST RUN', 'REASON'],
          rows.map((row) => [
            row.state,
            String(row.failureStreak),
            row.name,
            row.workloadId,
            row.lastSuccessAt ?? 'never',
            row.skippedSince ?? '',
            row.lastRunId ?? '',
            truncate(row.reason ?? '', 60),
          ]),
        ),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
