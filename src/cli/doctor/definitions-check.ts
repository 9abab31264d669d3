import { withAllClusters } from '../../platform/api/sla-domain-clusters.js';
import type { JobDefinition } from '../../definitions/job-definition.js';
import { retentionOf } from '../../definitions/snapshot-definition.js';
import { NotFoundError } from '../../platform/http/platform-errors.js';
import type { SlaDomain } from '../../platform/records/sla-domain.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';

/**
 * Each job definition against the platform, read-only: a snapshot's retention SLA Domain
 * exists and protects the kinds its targets select; a window's SLA Domains and clusters exist;
 * a rotation's service account exists.
 */
export async function definitionsCheck(context: DoctorContext): Promise<CheckResult[]> {
  if (context.definitions === undefined || context.definitions.length === 0) {
    const result = check(
      'definitions',
      'job definitions against the platform',
      'skip',
      `no job definitions in ${context.settings.jobs.dir}`,
      { blocks: false, fix: 'pass --jobs DIR (or set PAW_JOBS_DIR) to check them too' },
    );
    context.report(result);
    return [result];
  }
  const results: CheckResult[] = [];
  for (const definition of context.definitions) {
    const problems = await problemsOf(context, definition).catch((error: unknown) => [
      `could not check: ${error instanceof Error ? error.message : String(error)}`,
    ]);
    const result = check(
      `definition.${definition.id}`,
      `definition ${definition.id} (${definition.kind})`,
      problems.length === 0 ? 'ok' : 'fail',
      problems.length === 0 ? 'what it names exists on the platform' : problems.join('; '),
      {
        fix:
          problems.length === 0 ? undefined : 'correct the definition (paw validate shows where)',
      },
    );
    context.report(result);
    results.push(result);
  }
  return results;
}

async function problemsOf(context: DoctorContext, definition: JobDefinition): Promise<string[]> {
  switch (definition.kind) {
    case 'snapshot':
      return snapshotProblems(context, definition);
    case 'sla-window':
      return windowProblems(context, definition);
    case 'rotate-secret': {
      const uuid = definition.serviceAccount.clientId.replace(/^client\|/, '');
      const accounts = await context.client.graphql.serviceAccounts.list(context.signal).toArray();
      return accounts.some((account) => account.clientId.endsWith(uuid))
        ? []
        : [`no service account ${definition.serviceAccount.clientId}`];
    }
  }
}

async function snapshotProblems(
  context: DoctorContext,
  definition: Extract<JobDefinition, { kind: 'snapshot' }>,
): Promise<string[]> {
  const retention = retentionOf(definition);
  if ('keepForever' in retention) return [];
  const sla = await findSla(context, retention);
  if (typeof sla === 'string') return [sla];
  // A cluster-local SLA Domain does not say which types it protects, and the platform may
  // withhold what a global one says: the platform decides at the snapshot.
  if (sla.objectTypes == null) return [];
  const { vocabulary } = context.client.api;
  const protectedKinds = new Set(sla.objectTypes.flatMap((word) => vocabulary.kindsOf(word)));
  const wanted = (definition.targets.types ?? [])
    .map((type) => vocabulary.workloadKind(type))
    .filter(
      (kind): kind is string =>
        kind !== undefined && vocabulary.onDemandSnapshot(kind) !== undefined,
    );
  const unprotected = wanted.filter((kind) => !protectedKinds.has(kind));
  return unprotected.length === 0
    ? []
    : [
        `its retention SLA Domain ${sla.name} does not protect ${unprotected.join(', ')} (it protects ${sla.objectTypes.join(', ') || 'nothing'})`,
      ];
}

async function windowProblems(
  context: DoctorContext,
  definition: Extract<JobDefinition, { kind: 'sla-window' }>,
): Promise<string[]> {
  const problems: string[] = [];
  const found: SlaDomain[] = [];
  for (const id of definition.slaDomains.ids ?? []) {
    const sla = await findSla(context, { slaDomainId: id });
    if (typeof sla === 'string') problems.push(sla);
    else found.push(sla);
  }
  for (const name of definition.slaDomains.names ?? []) {
    const sla = await findSla(context, { slaDomainName: name });
    if (typeof sla === 'string') problems.push(sla);
    else found.push(sla);
  }
  for (const clusterId of definition.slaDomains.clusterIds ?? []) {
    if (
      !found.some((sla) => (sla.clusters ?? []).some((cluster) => cluster.clusterId === clusterId))
    ) {
      problems.push(`none of its SLA Domains is on cluster ${clusterId}`);
    }
  }
  return problems;
}

/** The SLA Domain, or what is wrong with the reference to it. */
async function findSla(
  context: DoctorContext,
  reference: { readonly slaDomainId: string } | { readonly slaDomainName: string },
): Promise<SlaDomain | string> {
  const { slaDomains } = context.client.api;
  if ('slaDomainId' in reference) {
    try {
      return await slaDomains.get(reference.slaDomainId, context.signal);
    } catch (error) {
      if (error instanceof NotFoundError)
        return `no SLA Domain has the id ${reference.slaDomainId}`;
      throw error;
    }
  }
  const matches = (
    await slaDomains
      .list(
        { filterField: 'NAME_EXACT_MATCH', filterText: reference.slaDomainName },
        context.signal,
      )
      .toArray()
  ).filter((sla) => sla.name === reference.slaDomainName);
  if (matches.length === 1 && matches[0] !== undefined) {
    return withAllClusters(slaDomains, matches[0], context.signal);
  }
  return matches.length === 0
    ? `no SLA Domain is named ${JSON.stringify(reference.slaDomainName)}`
    : `${matches.length} SLA Domains are named ${JSON.stringify(reference.slaDomainName)}`;
}
