import { PAT_MINIMUM_VERSION, versionAtLeast } from './cluster-version.js';
import { credentialsFileOf, type CredentialsFile } from './credentials-file.js';
import type { ConnectionState, WorkloadType } from './records.js';
import type { SimulatorState } from './simulator-state.js';

/** What a test or a demo needs to know about a running simulator (`GET /_sim/fixtures`). */
export interface SimulatorFixtures {
  baseUrl: string;
  accessTokenUri: string;
  seed: number;
  timeScale: number;
  /** Current credentials, in the platform's credentials-file format. */
  serviceAccounts: { admin: CredentialsFile; readOnly: CredentialsFile };
  clusters: {
    id: string;
    name: string;
    type: string;
    version: string;
    connectionState: ConnectionState;
    baseUrl: string;
    supportsPersonalAccessTokens: boolean;
  }[];
  personalAccessToken: { clientId: string; clientSecret: string; name: string; ownerEmail: string };
  oauthApp: {
    clientId: string;
    clientSecret: string;
    name: string;
    redirectUris: string[];
    scope: string;
    authorizeUrl: string;
    tokenUrl: string;
  };
  user: { id: string; email: string };
  roles: { id: string; name: string; permissions: string[] }[];
  slaDomains: { id: string; name: string }[];
  clusterSessionCap: number;
  /** Which of the platforms paw must survive this simulator is (docs/platform-model.md). */
  platform: {
    vocabulary: string;
    typeSpellings: Partial<Record<WorkloadType, string>>;
    eventsWithoutJobIds: boolean;
    jobStatusLinkTarget: 'platform' | 'cluster-node';
    restLayout: string;
  };
  workloads: {
    count: number;
    byType: Partial<Record<WorkloadType, number>>;
    /** One workload of each situation, for tests (ids; absent when the inventory has none). */
    samples: {
      vsphereVm?: string;
      mssqlDatabase?: string;
      unsupportedType?: string;
      onDisconnectedCluster?: string;
      unprotected?: string;
    };
  };
}

export function simulatorFixtures(state: SimulatorState): SimulatorFixtures {
  const { identities, inventory, accounts } = state;
  const oauthApp = accounts.oauthApp;
  if (oauthApp === undefined) throw new Error('the OAuth application is not registered');
  const byType: Partial<Record<WorkloadType, number>> = {};
  const samples: SimulatorFixtures['workloads']['samples'] = {};
  for (const workload of inventory.workloads) {
    byType[workload.type] = (byType[workload.type] ?? 0) + 1;
    const connected = workload.cluster.connectionState === 'Connected';
    if (connected && workload.type === 'VSPHERE_VM') samples.vsphereVm ??= workload.id;
    if (connected && workload.type === 'MSSQL_DATABASE') samples.mssqlDatabase ??= workload.id;
    if (workload.type !== 'VSPHERE_VM' && workload.type !== 'MSSQL_DATABASE')
      samples.unsupportedType ??= workload.id;
    if (workload.cluster.connectionState === 'Disconnected' && workload.type === 'VSPHERE_VM') {
      samples.onDisconnectedCluster ??= workload.id;
    }
    if (connected && workload.slaDomainId === null && workload.type === 'VSPHERE_VM')
      samples.unprotected ??= workload.id;
  }
  return {
    baseUrl: state.baseUrl,
    accessTokenUri: state.accessTokenUri,
    seed: state.options.seed,
    timeScale: state.options.timeScale,
    serviceAccounts: {
      admin: credentialsFileOf(identities.adminAccount, state.accessTokenUri),
      readOnly: credentialsFileOf(identities.readOnlyAccount, state.accessTokenUri),
    },
    clusters: identities.clusters.map((cluster) => ({
      id: cluster.id,
      name: cluster.name,
      type: cluster.type,
      version: cluster.version,
      connectionState: cluster.connectionState,
      baseUrl: state.clusterBaseUrls.get(cluster.id) ?? '',
      supportsPersonalAccessTokens: versionAtLeast(cluster.version, PAT_MINIMUM_VERSION),
    })),
    personalAccessToken: {
      clientId: identities.pat.clientId,
      clientSecret: identities.pat.secret,
      name: identities.pat.name,
      ownerEmail: identities.operator.email,
    },
    oauthApp: {
      clientId: oauthApp.clientId,
      clientSecret: oauthApp.clientSecret,
      name: oauthApp.name,
      redirectUris: [...oauthApp.redirectUris],
      scope: oauthApp.scope,
      authorizeUrl: `${state.baseUrl}/oauth_authorize`,
      tokenUrl: `${state.baseUrl}/api/oauth/token`,
    },
    user: { id: identities.operator.id, email: identities.operator.email },
    roles: identities.roles.map((role) => ({
      id: role.id,
      name: role.name,
      permissions: [...role.permissions],
    })),
    slaDomains: state.slaDomains.list().map((domain) => ({ id: domain.id, name: domain.name })),
    clusterSessionCap: state.clusterSessions.sessionCap,
    platform: {
      vocabulary: state.words.name,
      typeSpellings: { ...state.options.typeSpellings },
      eventsWithoutJobIds: state.eventsWithoutJobIds,
      jobStatusLinkTarget: state.jobStatusLink.target,
      restLayout: state.options.restLayout,
    },
    workloads: { count: inventory.workloads.length, byType, samples },
  };
}
