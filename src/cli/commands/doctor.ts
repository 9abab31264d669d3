import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { checkDefinitions, checkOptionsFrom } from '../../definitions/load-definitions.js';
import { JOB_KINDS, type JobDefinition } from '../../definitions/job-definition.js';
import { check, type CheckResult } from '../doctor/doctor-check.js';
import { writeRoutesFile } from '../doctor/reference-check.js';
import { runDoctor, type DoctorReport } from '../doctor/run-doctor.js';
import { UsageError } from '../../shared/usage-error.js';
import { ExitCode } from '../exit-codes.js';
import { collect, examples, positiveSeconds } from '../option-parsers.js';
import type { Output } from '../output/output.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';
import { printable } from '../../shared/printable.js';

interface DoctorFlags extends PlatformCommandOptions {
  readonly jobs?: string;
  readonly allowWrites?: boolean;
  readonly workload?: string;
  readonly sla?: string;
  readonly cluster?: string;
  readonly clusterUrl?: string[];
  readonly timeout?: number;
  readonly writeRoutes?: string;
  readonly force?: boolean;
  readonly schema?: string;
}

const MARKS: Record<CheckResult['status'], string> = {
  ok: '✔',
  warn: '!',
  fail: '✘',
  skip: '-',
};

/** `paw doctor`: the first command against a real account. */
export function doctorCommand(): Command {
  return withPlatformOptions(
    new Command('doctor')
      .description(
        'check, read-only, that paw can work with your platform account: credentials, a token, the ' +
          'GraphQL and REST interfaces and their words, the platform’s REST reference, your job ' +
          'definitions; each failure with its fix',
      )
      .option('--jobs <dir>', 'job definitions to check against the platform (default: jobs.dir)')
      .option(
        '--write-routes <file>',
        'write the platform.routes block that matches the platform’s REST reference',
      )
      .option('--force', 'with --write-routes: overwrite an existing file')
      .option(
        '--cluster-url <url>',
        'a cluster address to check for PAT sessions (repeatable)',
        collect,
      )
      .option(
        '--schema <file>',
        'compare paw’s GraphQL documents with this schema (SDL or saved introspection JSON) instead of introspecting the platform',
      )
      .option('--allow-writes', 'also take one real snapshot and pause/resume an SLA Domain')
      .option('--workload <id>', 'with --allow-writes: the workload to snapshot')
      .option('--sla <id>', 'with --allow-writes: its retention SLA Domain (and the one to pause)')
      .option('--cluster <id>', 'with --allow-writes: the cluster to pause and resume it on')
      .option(
        '--timeout <seconds>',
        'with --allow-writes: how long to wait for the snapshot (default 1800)',
        positiveSeconds,
      )
      .addHelpText(
        'after',
        '\nRead-only unless --allow-writes is given. Progress goes to standard error, the checklist to\n' +
          'standard output (--json for scripts). Exit codes: 0 when paw’s jobs can run as configured\n' +
          '(warnings allowed), 1 when a check they need failed, 2 on bad usage.\n' +
          examples(
            'paw doctor --credentials sa.json',
            'paw doctor --jobs jobs --json',
            'paw doctor --write-routes routes.yaml',
            'paw doctor --api graphql',
            'paw doctor --api graphql --schema account-schema.graphql',
            'paw doctor --allow-writes --workload <id> --sla <slaDomainId> --cluster <clusterId>',
          ),
      ),
  ).action(async (flags: DoctorFlags) => {
    if (flags.allowWrites && (flags.workload === undefined || flags.sla === undefined)) {
      throw new UsageError(
        '--allow-writes needs --workload ID and --sla ID (and --cluster ID for the pause round trip)',
      );
    }
    if (
      !flags.allowWrites &&
      [flags.workload, flags.sla, flags.cluster].some((v) => v !== undefined)
    ) {
      throw new UsageError('--workload, --sla and --cluster take effect only with --allow-writes');
    }
    if (flags.force && flags.writeRoutes === undefined) {
      throw new UsageError('--force goes with --write-routes FILE');
    }
    if (flags.writeRoutes !== undefined && existsSync(flags.writeRoutes) && !flags.force) {
      throw new UsageError(`${flags.writeRoutes} exists; pass --force to overwrite it`);
    }
    const report = await withPlatformClient(
      flags,
      async ({ client, output, loaded }) => {
        const dir = flags.jobs ?? loaded.settings.jobs.dir;
        const definitions = await readDefinitions(dir, loaded.settings);
        const kinds = definitions.loaded?.length
          ? [...new Set(definitions.loaded.map((definition) => definition.kind))]
          : [...JOB_KINDS];
        const progress = (result: CheckResult): void => {
          process.stderr.write(`  ${MARKS[result.status]} ${printable(result.title)}\n`);
        };
        if (definitions.problem !== undefined) progress(definitions.problem);
        const doctored = await runDoctor({
          client,
          settings: { ...loaded.settings, jobs: { ...loaded.settings.jobs, dir } },
          definitions: definitions.loaded,
          kinds,
          report: progress,
          options: {
            allowWrites: flags.allowWrites === true,
            workloadId: flags.workload,
            slaDomainId: flags.sla,
            clusterId: flags.cluster,
            clusterUrls: flags.clusterUrl ?? [],
            snapshotTimeoutMs: (flags.timeout ?? 1800) * 1000,
            schemaFile: flags.schema,
          },
        });
        const full: DoctorReport =
          definitions.problem === undefined
            ? doctored
            : { ...doctored, ok: false, checks: [definitions.problem, ...doctored.checks] };
        if (flags.writeRoutes !== undefined) await writeRoutes(flags.writeRoutes, full, output);
        return present(full, output);
      },
      async (error, { output, loaded }) =>
        present(
          {
            ok: false,
            api: loaded.settings.platform.api,
            checks: [
              check('credentials', 'credentials', 'fail', error.message, {
                fix: 'download the service account’s credentials file from the platform and pass --credentials FILE (or set PAW_CREDENTIALS_FILE)',
              }),
            ],
            recommendations: [],
          },
          output,
        ),
    );
    if (!report.ok) process.exitCode = ExitCode.failure;
  });
}

/** The definitions to check, or the reason they cannot be (a failed check). */
async function readDefinitions(
  dir: string,
  settings: Parameters<typeof checkOptionsFrom>[0],
): Promise<{ loaded?: readonly JobDefinition[]; problem?: CheckResult }> {
  if (!existsSync(dir)) return {};
  const report = await checkDefinitions(dir, checkOptionsFrom(settings));
  if (report.problems.length > 0) {
    return {
      loaded: report.definitions.map((loaded) => loaded.definition),
      problem: check(
        'definitions.valid',
        `job definitions in ${dir}`,
        'fail',
        report.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; '),
        { fix: `paw validate --jobs ${dir} shows each problem with its line and fix` },
      ),
    };
  }
  return { loaded: report.definitions.map((loaded) => loaded.definition) };
}

async function writeRoutes(file: string, report: DoctorReport, output: Output): Promise<void> {
  if (report.routes === undefined) {
    output.warn(`no REST reference found: ${file} was not written`);
    return;
  }
  await writeRoutesFile(file, report.routes.routesBlock);
  const count = Object.keys(report.routes.routesBlock).length;
  output.note(
    `wrote ${file}: ${count} route${count === 1 ? '' : 's'} that differ from paw's defaults (merge it into config/paw.yaml)`,
  );
}

function present(report: DoctorReport, output: Output): DoctorReport {
  const { routes: _routes, ...json } = report;
  output.result(json, () => {
    const lines = report.checks.flatMap((result) => [
      `${MARKS[result.status]} ${result.status.padEnd(4)}  ${result.title}: ${result.detail}`,
      ...(result.fix === undefined || result.status === 'ok'
        ? []
        : [`         fix: ${result.fix}`]),
    ]);
    const verdict = report.ok
      ? `paw's jobs can run through ${report.api}${report.checks.some((c) => c.status === 'warn') ? ' (see the warnings)' : ''}.`
      : `paw's jobs cannot run through ${report.api} until the failures above are fixed.`;
    return [...lines, '', ...report.recommendations.map((line) => `→ ${line}`), verdict, ''].join(
      '\n',
    );
  });
  return report;
}
