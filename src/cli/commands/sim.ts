import { Command, InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../../shared/usage-error.js';
import { writePrivateFileAtomically } from '../../shared/write-private-file.js';
import { Shutdown } from '../../shared/shutdown.js';
import { createLogger } from '../../shared/logger.js';
import { faultsSchema } from '../../simulator/fault-rules.js';
import { simulatorOptionsSchema, type SimulatorOptions } from '../../simulator/options.js';
import { REST_LAYOUTS } from '../../simulator/rest-layouts.js';
import { SIM_VOCABULARIES } from '../../simulator/sim-vocabulary.js';
import { publishedSchema } from '../../platform/graphql/schema/platform-schema.js';
import { startSimulator, type SimulatorHandle } from '../../simulator/simulator.js';
import { describeIssues, readYamlFile, type YamlDocument } from '../../shared/yaml-file.js';

/** `paw sim` listens on 8080 unless told otherwise (the API's default is a free port). */
const DEFAULT_PORT = 8080;

interface SimFlags {
  port?: number;
  seed?: number;
  workloads?: number;
  clusters?: number;
  timeScale?: number;
  rateLimit?: number;
  tokenLifetime?: number;
  sessionLifetime?: number;
  sessionCap?: number;
  concurrency?: number;
  jobDuration?: number;
  failureRate?: number;
  cancelRate?: number;
  jobStatusLink?: string;
  jobStatusLinkTarget?: string;
  vocabulary?: string;
  eventsWithoutJobIds?: boolean;
  restLayout?: string;
  redirectUri?: string[];
  faults?: string;
  config?: string;
  credentialsOut?: string;
  json?: boolean;
  logLevel: string;
}

/** Where each flag lands in the options schema (docs/simulator.md lists the same). */
const FLAG_PATHS: Record<
  Exclude<keyof SimFlags, 'faults' | 'config' | 'credentialsOut' | 'json' | 'logLevel'>,
  string[]
> = {
  port: ['port'],
  seed: ['seed'],
  workloads: ['workloads'],
  clusters: ['clusters'],
  timeScale: ['timeScale'],
  rateLimit: ['rateLimit', 'requestsPerSecond'],
  tokenLifetime: ['tokenLifetimeSeconds'],
  sessionLifetime: ['clusterSessionLifetimeSeconds'],
  sessionCap: ['clusterSessionCap'],
  concurrency: ['jobs', 'concurrencyPerCluster'],
  jobDuration: ['jobs', 'durationSeconds', 'median'],
  failureRate: ['jobs', 'failureRate'],
  cancelRate: ['jobs', 'cancelRate'],
  jobStatusLink: ['jobStatusLink', 'shape'],
  jobStatusLinkTarget: ['jobStatusLink', 'target'],
  vocabulary: ['vocabulary'],
  eventsWithoutJobIds: ['eventsWithoutJobIds'],
  restLayout: ['restLayout'],
  redirectUri: ['oauth', 'redirectUris'],
};

const FLAG_NAMES: Record<keyof typeof FLAG_PATHS, string> = {
  port: '--port',
  seed: '--seed',
  workloads: '--workloads',
  clusters: '--clusters',
  timeScale: '--time-scale',
  rateLimit: '--rate-limit',
  tokenLifetime: '--token-lifetime',
  sessionLifetime: '--session-lifetime',
  sessionCap: '--session-cap',
  concurrency: '--concurrency',
  jobDuration: '--job-duration',
  failureRate: '--failure-rate',
  cancelRate: '--cancel-rate',
  jobStatusLink: '--job-status-link',
  jobStatusLinkTarget: '--job-status-link-target',
  vocabulary: '--vocabulary',
  eventsWithoutJobIds: '--events-without-job-ids',
  restLayout: '--rest-layout',
  redirectUri: '--redirect-uri',
};

function integer(text: string): number {
  if (!/^-?\d+$/.test(text.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(text);
}

function number(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new InvalidArgumentError('must be a number');
  return value;
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** `paw sim`: the platform simulator, until Ctrl-C or SIGTERM. */
export function simCommand(): Command {
  return new Command('sim')
    .description(
      'Run the platform simulator on 127.0.0.1: the platform (tokens, GraphQL, OAuth, the task-based ' +
        'REST interface) on --port and each simulated cluster on the ports after it. Stops cleanly on ' +
        'Ctrl-C or SIGTERM. See docs/simulator.md.',
    )
    .option(
      '--port <port>',
      `platform port; clusters take the next ones; 0 picks free ports (default ${DEFAULT_PORT})`,
      integer,
    )
    .option('--seed <n>', 'seed of the inventory and of every random draw (default 1)', integer)
    .option('--workloads <n>', 'number of workloads (default 200)', integer)
    .option('--clusters <n>', 'number of clusters, at least 3 (default 4)', integer)
    .option(
      '--time-scale <x>',
      'platform time runs x times faster: job durations, token and session lifetimes (default 1)',
      number,
    )
    .option(
      '--rate-limit <n>',
      'platform API requests per second; 0 turns the limit off (default 50)',
      number,
    )
    .option(
      '--token-lifetime <seconds>',
      'access-token lifetime in platform seconds, at most 86400 (default 43200)',
      integer,
    )
    .option(
      '--session-lifetime <seconds>',
      'cluster session lifetime in platform seconds (default 86400)',
      integer,
    )
    .option('--session-cap <n>', 'live sessions per account per cluster (default 10)', integer)
    .option('--concurrency <n>', 'snapshot jobs a cluster runs at once (default 32)', integer)
    .option(
      '--job-duration <seconds>',
      'median snapshot job duration in platform seconds (default 120)',
      number,
    )
    .option('--failure-rate <p>', 'probability that a snapshot job fails (default 0.03)', number)
    .option(
      '--cancel-rate <p>',
      'probability that a snapshot job is canceled (default 0.01)',
      number,
    )
    .addOption(
      new Option(
        '--job-status-link <shape>',
        'shape of the job-status link in a trigger’s metadata',
      ).choices(['jobStatusUrl', 'jobStatusLink', 'link', 'href', 'links']),
    )
    .addOption(
      new Option(
        '--job-status-link-target <target>',
        "whose origin the job links name: the platform's, or the workload's cluster node (as the real platform's do)",
      ).choices(['platform', 'cluster-node']),
    )
    .addOption(
      new Option(
        '--vocabulary <words>',
        "the words of REST records and job statuses: this project's model, or the GraphQL schema's",
      ).choices([...SIM_VOCABULARIES]),
    )
    .option(
      '--events-without-job-ids',
      'REST events carry no job id, as the real platform’s activity records',
    )
    .addOption(
      new Option(
        '--rest-layout <layout>',
        'where the REST routes live: the default, or v2 (moved and renamed, docs/platform-model.md)',
      ).choices([...REST_LAYOUTS]),
    )
    .option('--redirect-uri <uri>', 'a redirect URI of the OAuth application (repeatable)', collect)
    .option('--faults <file>', 'YAML or JSON fault configuration (docs/simulator.md, "Faults")')
    .option('--config <file>', 'YAML file of all simulator options; flags override it')
    .option(
      '--credentials-out <file>',
      "write the admin service account's credentials file here (mode 0600)",
    )
    .option('--json', 'print the fixtures (with secrets) as JSON instead of the summary')
    .addOption(
      new Option('--log-level <level>', 'log level on standard error')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('info'),
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  paw sim --port 8080 --seed 7 --credentials-out sa.json\n' +
        '  paw sim --port 0 --workloads 10000 --time-scale 3600 --rate-limit 0 --json\n' +
        '\nIntrospection (never authenticated, rate limited or faulted): /_sim/fixtures, /_sim/stats,\n' +
        '/_sim/faults, /_sim/issued-secrets, /_sim/job-status-link, /_sim/rate-limit.',
    )
    .action(async (flags: SimFlags) => runSimulator(flags));
}

async function runSimulator(flags: SimFlags): Promise<void> {
  const logger = createLogger({
    level: flags.logLevel as 'info',
    base: { component: 'simulator' },
  });
  const input = await simulatorInput(flags);
  const shutdown = new Shutdown({ logger });
  shutdown.installSignalHandlers();
  const simulator = await startSimulator(input, { logger });
  // Users' SDKs and scripts select beyond paw's part of the schema: build the whole published
  // schema now (about a second), so that no first request of theirs waits for it.
  publishedSchema();
  if (shutdown.signal.aborted) {
    // A signal arrived while the servers were starting: their cleanup was not registered yet.
    await simulator.stop();
    return;
  }
  shutdown.add('simulator', () => simulator.stop());
  try {
    if (flags.credentialsOut !== undefined) {
      await writePrivateFileAtomically(
        flags.credentialsOut,
        `${JSON.stringify(simulator.credentials, null, 2)}\n`,
      );
    }
    process.stdout.write(
      flags.json === true ? `${JSON.stringify(simulator.fixtures())}\n` : summary(simulator, flags),
    );
  } catch (error) {
    await shutdown.run('start-up failed');
    throw error;
  }
  await new Promise<void>((resolve) => {
    if (shutdown.signal.aborted) resolve();
    else shutdown.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await shutdown.run('signal');
  logger.info('simulator stopped');
  logger.flush();
}

/** The options: defaults, then `--config`, then `--faults`, then the other flags. */
async function simulatorInput(flags: SimFlags): Promise<SimulatorOptions> {
  let input: Record<string, unknown> = {};
  let config: YamlDocument | undefined;
  if (flags.config !== undefined) {
    const documents = await readYamlFile(flags.config);
    if (documents.length > 1)
      throw new UsageError(`${flags.config}: holds more than one YAML document; keep one`);
    config = documents[0];
    if (config !== undefined) {
      if (
        typeof config.value !== 'object' ||
        config.value === null ||
        Array.isArray(config.value)
      ) {
        throw new UsageError(
          `${config.locate([])}: the simulator configuration must be a mapping of options`,
        );
      }
      input = config.value as Record<string, unknown>;
    }
  }
  if (input['port'] === undefined) input['port'] = DEFAULT_PORT;

  if (flags.faults !== undefined) {
    const [document, extra] = await readYamlFile(flags.faults);
    if (extra !== undefined)
      throw new UsageError(`${flags.faults}: holds more than one YAML document; keep one`);
    const parsed = faultsSchema.safeParse(document?.value ?? {});
    if (!parsed.success) {
      const problems = describeIssues(
        parsed.error.issues,
        document?.locate ?? (() => flags.faults ?? ''),
      );
      throw new UsageError(`invalid faults:\n  ${problems.join('\n  ')}`);
    }
    input['faults'] = parsed.data;
  }

  const fromFlags = new Map<string, string>();
  for (const [key, path] of Object.entries(FLAG_PATHS) as [keyof typeof FLAG_PATHS, string[]][]) {
    const value = flags[key];
    if (value === undefined) continue;
    setPath(input, path, value);
    fromFlags.set(path.join('.'), FLAG_NAMES[key]);
  }

  const parsed = simulatorOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const locate = (path: readonly PropertyKey[]): string => {
      for (let depth = path.length; depth > 0; depth--) {
        const flag = fromFlags.get(path.slice(0, depth).map(String).join('.'));
        if (flag !== undefined) return flag;
      }
      if (path[0] === 'faults' && flags.faults !== undefined) return flags.faults;
      return config?.locate(path) ?? 'options';
    };
    const problems = describeIssues(parsed.error.issues, locate);
    throw new UsageError(`invalid simulator options:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
      node = next as Record<string, unknown>;
    } else {
      const created: Record<string, unknown> = {};
      node[key] = created;
      node = created;
    }
  }
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

/** What a person starting the simulator wants to see; no secret in it. */
function summary(simulator: SimulatorHandle, flags: SimFlags): string {
  const { options } = simulator;
  const rate =
    options.rateLimit.requestsPerSecond === 0 ? 'off' : `${options.rateLimit.requestsPerSecond}/s`;
  const lines = [
    `paw simulator listening on ${simulator.baseUrl}`,
    `  seed ${options.seed}, ${options.workloads} workloads, time scale ${options.timeScale}x, rate limit ${rate}`,
    ...simulator.clusters.map(
      (cluster) =>
        `  cluster ${cluster.name.padEnd(18)} ${cluster.version.padEnd(6)} ${cluster.connectionState.padEnd(12)} ${cluster.baseUrl}`,
    ),
    flags.credentialsOut === undefined
      ? '  credentials: not written (use --credentials-out FILE)'
      : `  credentials: ${flags.credentialsOut} (service account ${simulator.credentials.name})`,
    `  fixtures:    ${simulator.baseUrl}/_sim/fixtures`,
    `  API docs:    ${simulator.baseUrl}/api/rest/docs`,
    'Press Ctrl-C to stop.',
  ];
  return `${lines.join('\n')}\n`;
}
