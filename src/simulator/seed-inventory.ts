import type {
  AccountDirectory,
  SimPersonalAccessToken,
  SimServiceAccount,
  SimUser,
} from './accounts.js';
import { Inventory } from './inventory.js';
import type { SimulatorOptions } from './options.js';
import { ROLE_TEMPLATES, type SimRole } from './permissions.js';
import {
  WORKLOAD_TYPES,
  type ClusterType,
  type ConnectionState,
  type SimCluster,
  type SimSlaDomain,
  type SimWorkload,
  type WorkloadType,
} from './records.js';
import type { SeededRandom } from './seeded-random.js';
import type { SlaDomainStore } from './sla-domains.js';
import { WorkloadNamer } from './workload-names.js';

/** The clusters every inventory starts with: one of each situation a client must handle. */
const CLUSTER_ARCHETYPES: readonly {
  name: string;
  type: ClusterType;
  connectionState: ConnectionState;
  version: string;
  nodeCount: number;
}[] = [
  {
    name: 'dc1-prod-cl01',
    type: 'OnPrem',
    connectionState: 'Connected',
    version: '9.6.1',
    nodeCount: 4,
  },
  {
    name: 'dc2-prod-cl02',
    type: 'OnPrem',
    connectionState: 'Connected',
    version: '9.7.0',
    nodeCount: 4,
  },
  {
    name: 'branch-robo-cl03',
    type: 'Robo',
    connectionState: 'Disconnected',
    version: '9.4.2',
    nodeCount: 1,
  },
  {
    name: 'aws-cloud-cl04',
    type: 'Cloud',
    connectionState: 'Connected',
    version: '9.5.1',
    nodeCount: 3,
  },
];

const EXTRA_CLUSTER_VERSIONS = ['9.5.2', '9.6.0', '9.6.1', '9.6.2', '9.7.0'] as const;

const TYPE_MIX: Record<WorkloadType, number> = {
  VSPHERE_VM: 45,
  MSSQL_DATABASE: 25,
  LINUX_FILESET: 8,
  WINDOWS_FILESET: 6,
  NAS_SHARE: 5,
  ORACLE_DATABASE: 4,
  HYPERV_VM: 4,
  AWS_EC2_INSTANCE: 3,
};

const SLA_TEMPLATES: readonly Omit<
  SimSlaDomain,
  'id' | 'clusterIds' | 'pauses' | 'protectedWorkloadCount'
>[] = [
  {
    name: 'Gold',
    description: 'Tier 1: every 4 hours, kept 30 days',
    objectTypes: [...WORKLOAD_TYPES],
    frequency: { unit: 'HOURLY', interval: 4 },
    retention: { unit: 'DAYS', duration: 30 },
  },
  {
    name: 'Silver',
    description: 'Tier 2: daily, kept 14 days',
    objectTypes: [...WORKLOAD_TYPES],
    frequency: { unit: 'DAILY', interval: 1 },
    retention: { unit: 'DAYS', duration: 14 },
  },
  {
    name: 'Bronze',
    description: 'Tier 3: weekly, kept 4 weeks',
    objectTypes: [...WORKLOAD_TYPES],
    frequency: { unit: 'WEEKLY', interval: 1 },
    retention: { unit: 'WEEKS', duration: 4 },
  },
  {
    name: 'SQL Hourly',
    description: 'SQL Server databases: hourly, kept 7 days',
    objectTypes: ['MSSQL_DATABASE'],
    frequency: { unit: 'HOURLY', interval: 1 },
    retention: { unit: 'DAYS', duration: 7 },
  },
  {
    name: 'Archive',
    description: 'Monthly, kept a year; protects nothing yet',
    objectTypes: ['VSPHERE_VM', 'LINUX_FILESET', 'WINDOWS_FILESET', 'NAS_SHARE'],
    frequency: { unit: 'MONTHLY', interval: 1 },
    retention: { unit: 'YEARS', duration: 1 },
  },
];

/** What the seeding created that fixtures and tests need to name. */
export interface SeededIdentities {
  readonly adminAccount: SimServiceAccount;
  readonly readOnlyAccount: SimServiceAccount;
  readonly operator: SimUser;
  readonly pat: SimPersonalAccessToken;
  readonly roles: readonly SimRole[];
  /** Clusters in creation order (ports follow it). */
  readonly clusters: readonly SimCluster[];
}

/**
 * Builds the seeded inventory: clusters, SLA Domains, workloads, roles, accounts, a personal
 * access token and the OAuth application. The same seed and options give the same inventory
 * (ids, names, assignments); secrets are random every time.
 */
export function seedInventory(
  options: SimulatorOptions,
  random: SeededRandom,
  accounts: AccountDirectory,
  slaDomains: SlaDomainStore,
): { inventory: Inventory; identities: SeededIdentities } {
  const clusters = seedClusters(options.clusters, random.fork('clusters'));
  const domains = SLA_TEMPLATES.map((template) => ({
    ...template,
    objectTypes: [...template.objectTypes],
    id: random.uuid(),
    clusterIds: clusters.map((cluster) => cluster.id),
    pauses: new Map(),
    protectedWorkloadCount: 0,
  }));
  const workloads = seedWorkloads(options.workloads, clusters, domains, random.fork('workloads'));
  for (const domain of domains) slaDomains.seed(domain);
  const identities = seedAccounts(options, random.fork('accounts'), accounts, clusters);
  return { inventory: new Inventory(clusters, workloads), identities };
}

function seedClusters(count: number, random: SeededRandom): SimCluster[] {
  const clusters: SimCluster[] = [];
  for (let index = 0; index < count; index++) {
    const archetype = CLUSTER_ARCHETYPES[index];
    const number = String(index + 1).padStart(2, '0');
    clusters.push({
      id: random.uuid(),
      ...(archetype ?? {
        name: `dc${index + 1}-cl${number}`,
        type: 'OnPrem',
        connectionState: random.weighted({ Connected: 85, Disconnected: 10, Initializing: 5 }),
        version: random.pick(EXTRA_CLUSTER_VERSIONS),
        nodeCount: random.int(3, 8),
      }),
    });
  }
  return clusters;
}

function seedWorkloads(
  count: number,
  clusters: readonly SimCluster[],
  domains: readonly SimSlaDomain[],
  random: SeededRandom,
): SimWorkload[] {
  const namer = new WorkloadNamer(random.fork('names'));
  const cloudClusters = clusters.filter((cluster) => cluster.type === 'Cloud');
  const onPremWeights = Object.fromEntries(
    clusters
      .filter((cluster) => cluster.type !== 'Cloud')
      .map((cluster, index) => [String(index), cluster.connectionState === 'Connected' ? 10 : 2]),
  );
  const onPremClusters = clusters.filter((cluster) => cluster.type !== 'Cloud');
  const [gold, silver, bronze, sqlHourly] = domains;
  const workloads: SimWorkload[] = [];
  for (let index = 0; index < count; index++) {
    const type = random.weighted(TYPE_MIX);
    const cluster =
      type === 'AWS_EC2_INSTANCE' && cloudClusters.length > 0
        ? random.pick(cloudClusters)
        : (onPremClusters[Number(random.weighted(onPremWeights))] ?? random.pick(clusters));
    let domain: SimSlaDomain | undefined;
    if (random.next() >= 0.12) {
      domain =
        type === 'MSSQL_DATABASE' && random.next() < 0.5
          ? sqlHourly
          : random.pick([gold, gold, gold, silver, silver, silver, silver, bronze, bronze, bronze]);
    }
    if (domain !== undefined) domain.protectedWorkloadCount++;
    workloads.push({
      id: random.uuid(),
      name: namer.next(type),
      type,
      cluster,
      slaDomainId: domain?.id ?? null,
      initialSlaDomainId: domain?.id ?? null,
      historySeed: random.nextUint32(),
    });
  }
  return workloads;
}

function seedAccounts(
  options: SimulatorOptions,
  random: SeededRandom,
  accounts: AccountDirectory,
  clusters: readonly SimCluster[],
): SeededIdentities {
  const roles = ROLE_TEMPLATES.map((template) => ({
    id: random.uuid(),
    name: template.name,
    permissions: new Set(template.permissions),
  }));
  for (const role of roles) accounts.addRole(role);
  const roleId = (name: string): string => {
    const role = roles.find((candidate) => candidate.name === name);
    if (role === undefined) throw new Error(`no seeded role ${name}`);
    return role.id;
  };
  const adminAccount = accounts.createServiceAccount({
    uuid: random.uuid(),
    name: 'paw-automation',
    description: 'paw: nightly snapshots, maintenance windows, secret rotation',
    roleIds: [roleId('Administrator')],
  });
  const readOnlyAccount = accounts.createServiceAccount({
    uuid: random.uuid(),
    name: 'paw-readonly',
    description: 'Read-only reporting',
    roleIds: [roleId('Read Only Admin')],
  });
  accounts.createServiceAccount({
    uuid: random.uuid(),
    name: 'itsm-integration',
    description: 'Ticketing integration',
    roleIds: [roleId('Snapshot Operator')],
    integration: { id: 4711, name: 'ServiceNow' },
  });
  accounts.createServiceAccount({
    uuid: random.uuid(),
    name: 'maintenance-windows',
    description: 'Pauses SLA Domains during change windows',
    roleIds: [roleId('SLA Maintenance Operator')],
  });
  const operator: SimUser = {
    id: random.uuid(),
    email: 'operator@example.com',
    roleIds: [roleId('Administrator')],
  };
  accounts.addUser(operator);
  accounts.addUser({
    id: random.uuid(),
    email: 'auditor@example.com',
    roleIds: [roleId('Read Only Admin')],
  });
  const pat = accounts.createPersonalAccessToken({
    uuid: random.uuid(),
    name: 'operator-cli',
    ownerUserId: operator.id,
  });
  accounts.registerOAuthApp({
    clientId: random.uuid(),
    name: 'paw-retrieval',
    redirectUris: options.oauth.redirectUris,
    scope: options.oauth.scope,
  });
  return { adminAccount, readOnlyAccount, operator, pat, roles, clusters };
}
