import type { Logger } from '../shared/logger.js';
import { silentLogger } from '../shared/logger.js';
import { UsageError } from '../shared/usage-error.js';
import { describeIssues } from '../shared/yaml-file.js';
import { buildClusterServer } from './cluster-server.js';
import { credentialsFileOf, type CredentialsFile } from './credentials-file.js';
import { faultsSchema, type FaultsInput } from './fault-rules.js';
import { simulatorFixtures, type SimulatorFixtures } from './fixtures.js';
import type { SecretKind } from './issued-secrets.js';
import {
  simulatorOptionsSchema,
  type SimulatorOptions,
  type SimulatorOptionsInput,
} from './options.js';
import { buildPlatformServer } from './platform-server.js';
import type { ConnectionState } from './records.js';
import type { ZodApp } from './route-config.js';
import { SimulatorState } from './simulator-state.js';
import { statsReport, type StatsReport } from './stats-report.js';

const HOST = '127.0.0.1';

/** A simulated cluster as a running simulator exposes it. */
interface SimulatorCluster {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly baseUrl: string;
  readonly connectionState: ConnectionState;
}

/** A running simulator. */
export interface SimulatorHandle {
  /** `{base_url}`, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly options: SimulatorOptions;
  readonly clusters: readonly SimulatorCluster[];
  /** The admin service account, current secret, in the platform's credentials-file format. */
  readonly credentials: CredentialsFile;
  fixtures(): SimulatorFixtures;
  stats(): StatsReport;
  /** Replaces the fault configuration (as `PUT /_sim/faults`). */
  setFaults(faults: FaultsInput): void;
  /** Every secret issued so far (as `GET /_sim/issued-secrets`). */
  issuedSecrets(): Record<SecretKind, readonly string[]>;
  /** Closes every server and timer; later calls return the same promise. */
  stop(): Promise<void>;
}

export interface SimulatorRuntime {
  /** Where unexpected route failures are logged; silent by default. */
  readonly logger?: Logger;
}

/** Validates options with {@link simulatorOptionsSchema}; problems become a {@link UsageError}. */
function parseSimulatorOptions(input: unknown, source = 'simulator options'): SimulatorOptions {
  const parsed = simulatorOptionsSchema.safeParse(input);
  if (!parsed.success) {
    const problems = describeIssues(parsed.error.issues, () => source);
    throw new UsageError(`invalid simulator options:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/**
 * Starts a simulator of the platform on 127.0.0.1: the platform on `options.port` and each
 * cluster on its own port. Several can run in one process; each owns its state.
 */
export async function startSimulator(
  input: SimulatorOptionsInput = {},
  runtime: SimulatorRuntime = {},
): Promise<SimulatorHandle> {
  const options = parseSimulatorOptions(input);
  const logger = runtime.logger ?? silentLogger();
  const state = new SimulatorState(options);
  const timers = new Set<NodeJS.Timeout>();
  const servers: ZodApp[] = [];
  const closeAll = async (): Promise<void> => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
    const results = await Promise.allSettled(servers.reverse().map((server) => server.close()));
    for (const result of results) if (result.status === 'rejected') throw result.reason;
  };

  try {
    const platform = await buildPlatformServer(state, timers, logger);
    servers.push(platform);
    state.baseUrl = await listen(platform, options.port, 'the platform');
    for (const [index, cluster] of state.identities.clusters.entries()) {
      const port =
        options.clusterPorts?.[index] ?? (options.port === 0 ? 0 : options.port + 1 + index);
      const server = buildClusterServer(state, cluster, timers, logger);
      servers.push(server);
      state.clusterBaseUrls.set(cluster.id, await listen(server, port, `cluster ${cluster.name}`));
    }
  } catch (error) {
    await closeAll().catch(() => undefined);
    throw error;
  }

  let stopping: Promise<void> | undefined;
  const clusters = state.identities.clusters.map((cluster): SimulatorCluster => ({
    id: cluster.id,
    name: cluster.name,
    version: cluster.version,
    baseUrl: state.clusterBaseUrls.get(cluster.id) ?? '',
    get connectionState() {
      return cluster.connectionState;
    },
  }));
  return {
    baseUrl: state.baseUrl,
    options,
    clusters,
    get credentials() {
      return credentialsFileOf(state.identities.adminAccount, state.accessTokenUri);
    },
    fixtures: () => simulatorFixtures(state),
    stats: () => statsReport(state),
    setFaults: (faults) => state.faults.set(faultsSchema.parse(faults)),
    issuedSecrets: () => state.secrets.snapshot(),
    stop: () => (stopping ??= closeAll()),
  };
}

async function listen(app: ZodApp, port: number, what: string): Promise<string> {
  try {
    await app.listen({ host: HOST, port });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(
        `port ${port} (for ${what}) is already in use; choose another with --port or stop what uses it`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string')
    throw new Error(`${what} has no TCP address`);
  return `http://${HOST}:${address.port}`;
}
