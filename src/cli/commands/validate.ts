import { Command } from 'commander';
import { checkDefinitions, checkOptionsFrom } from '../../definitions/load-definitions.js';
import { displayPath, formatProblem } from '../../definitions/definition-problem.js';
import { CronSchedule } from '../../definitions/schedule/cron-schedule.js';
import { printable } from '../../shared/printable.js';
import { ExitCode } from '../exit-codes.js';
import { loadCommandSettings } from '../command-settings.js';

/**
 * `paw validate`: checks every job definition without starting anything or touching Redis.
 * Lists all problems (file:line:column, path, what is wrong, the fix) and exits 2 if there is
 * any (a folder that holds no definition is one); exits 0 when every definition is valid.
 */
export function validateCommand(): Command {
  return new Command('validate')
    .description('check the job definitions (jobs/*.yaml) without running anything')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 every definition is valid; 2 some are not (all problems are listed), or the\n' +
        'folder holds none.',
    )
    .action(async (options: { jobs?: string; json?: boolean }) => {
      const { settings } = await loadCommandSettings(options);
      const report = await checkDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
      const now = new Date();
      const valid = report.problems.length === 0;
      if (options.json === true) {
        const output = {
          valid,
          dir: report.dir,
          files: report.files,
          definitions: report.definitions.map(({ definition, file, line }) => ({
            id: definition.id,
            kind: definition.kind,
            enabled: definition.enabled,
            file,
            line: line ?? null,
            nextFire:
              CronSchedule.create(definition.schedule.cron, definition.schedule.timezone)
                .nextFire(now)
                ?.toISOString() ?? null,
          })),
          problems: report.problems,
          warnings: report.warnings,
        };
        process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
      } else {
        for (const { definition, file, line } of report.definitions) {
          // A file's name is anyone's: escaped with the rest.
          process.stdout.write(
            `${printable(`ok       ${definition.id} (${definition.kind}${definition.enabled ? '' : ', disabled'})  ${displayPath(file)}${line === undefined ? '' : `:${line}`}`)}\n`,
          );
        }
        for (const warning of report.warnings) {
          // A problem quotes the file (a YAML key, a value): escaped, one line each.
          process.stderr.write(`warning  ${printable(formatProblem(warning))}\n`);
        }
        for (const problem of report.problems) {
          process.stderr.write(`error    ${printable(formatProblem(problem))}\n`);
        }
        const summary = valid
          ? `${report.definitions.length} definition${report.definitions.length === 1 ? '' : 's'} valid in ${displayPath(report.dir)}`
          : `${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} in ${displayPath(report.dir)}; nothing was run`;
        (valid ? process.stdout : process.stderr).write(`${summary}\n`);
      }
      if (!valid) process.exitCode = ExitCode.usage;
    });
}
