import type { JobKind } from '../../definitions/job-definition.js';
import { SCHEMA_DIFFERS_FIX } from '../../platform/http/document-refusal.js';
import {
  DocumentRefusedError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  isPlatformError,
} from '../../platform/http/platform-errors.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';
import { JOB_KIND_NEEDS, type GraphqlNeed } from './job-kind-needs.js';

/** What a probe found out about one operation. */
type Probe =
  | { readonly found: 'usable' | 'missing'; readonly message?: string }
  | { readonly found: 'denied' | 'refused' | 'error'; readonly message: string };

/** A schema that could not know the operation or its input type. */
const MISSING = /cannot query field|unknown type|unknown argument|undefined field|not defined/i;

async function probe(context: DoctorContext, need: GraphqlNeed): Promise<Probe> {
  try {
    await context.client.graphql.client.requestUnchecked(need.probe, need.variables, {
      signal: context.signal,
    });
    return { found: 'usable' };
  } catch (error) {
    if (error instanceof PermissionError)
      return { found: 'denied', message: error.platformMessage };
    // The probe's object does not exist: the operation does, and the account may use it.
    if (error instanceof NotFoundError) return { found: 'usable' };
    // Refused before it ran for a field of the answer, not for the operation: the schema moved.
    if (error instanceof DocumentRefusedError && !error.refused.some(isOperation)) {
      return { found: 'refused', message: error.platformMessage };
    }
    if (error instanceof InvalidRequestError) {
      if (MISSING.test(error.platformMessage)) {
        return { found: 'missing', message: error.platformMessage };
      }
      // Refused for the probe's made-up input, after the permission: usable (nothing ran).
      return { found: 'usable' };
    }
    const message = isPlatformError(error)
      ? error.platformMessage
      : error instanceof Error
        ? error.message
        : String(error);
    return { found: 'error', message };
  }
}

/**
 * GraphQL reachable, and for each job kind the operations it needs, each asked about an object
 * that does not exist (job-kind-needs.ts): a refusal names the rights the account's roles lack.
 */
export async function graphqlChecks(context: DoctorContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const api = context.settings.platform.api;
  for (const kind of context.kinds) {
    const needs = JOB_KIND_NEEDS[kind];
    // Rotation works through GraphQL whatever platform.api says.
    const blocks = api === 'graphql' || kind === 'rotate-secret';
    const probes = await Promise.all(
      needs.graphql.map(async (need) => [need, await probe(context, need)] as const),
    );
    const denied = probes.filter(([, result]) => result.found === 'denied');
    const missing = probes.filter(([, result]) => result.found === 'missing');
    const refused = probes.filter(([, result]) => result.found === 'refused');
    const failed = probes.filter(([, result]) => result.found === 'error');
    const id = `graphql.${kind}`;
    const title = `GraphQL operations of ${kind} jobs`;
    const names = (list: typeof probes) => list.map(([need]) => need.operation).join(', ');
    let result: CheckResult;
    if (denied.length > 0) {
      result = check(
        id,
        title,
        'fail',
        `refused ${names(denied)}: ${denied[0]?.[1].message ?? ''}`,
        {
          blocks,
          fix: `the service account lacks a role that can ${needs.rights}: give it one in the platform's access settings (${kindOfRole(kind)})`,
        },
      );
    } else if (missing.length > 0) {
      result = check(id, title, 'fail', `the schema has no ${names(missing)}`, {
        blocks,
        fix:
          kind === 'rotate-secret'
            ? 'this platform cannot rotate secrets through GraphQL: paw cannot run rotate-secret jobs here'
            : 'use platform.api: rest (PAW_PLATFORM_API=rest) if the REST checks pass',
      });
    } else if (refused.length > 0) {
      result = check(id, title, 'fail', `${names(refused)}: ${refused[0]?.[1].message ?? ''}`, {
        blocks,
        fix: `no role fixes it: ${SCHEMA_DIFFERS_FIX}`,
      });
    } else if (failed.length > 0) {
      result = check(
        id,
        title,
        'fail',
        `${names(failed)} failed: ${failed[0]?.[1].message ?? ''}`,
        {
          blocks,
          fix: 'run paw doctor again; if it persists, the platform is unavailable (see -v for each call)',
        },
      );
    } else {
      result = check(id, title, 'ok', `${probes.length} operations answer: ${names(probes)}`, {
        blocks,
      });
    }
    context.report(result);
    results.push(result);
  }
  return results;
}

/** Whether a refused name is an operation (a root field): then the schema has no such operation. */
function isOperation(name: string): boolean {
  return name.startsWith('Query.') || name.startsWith('Mutation.');
}

/** The role of the simulator's roles (and of a least-privilege setup) that grants a kind's rights. */
function kindOfRole(kind: JobKind): string {
  switch (kind) {
    case 'snapshot':
      return 'e.g. a snapshot operator role';
    case 'sla-window':
      return 'e.g. an SLA maintenance operator role';
    case 'rotate-secret':
      return 'e.g. a service account manager role';
  }
}
