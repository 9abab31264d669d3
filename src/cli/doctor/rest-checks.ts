import { z } from 'zod';
import {
  NotFoundError,
  PermissionError,
  ProtocolError,
  isPlatformError,
} from '../../platform/http/platform-errors.js';
import type { RestOperationId } from '../../platform/defaults/default-routes.js';
import type { PlatformEvent } from '../../platform/records/platform-event.js';
import type { Snapshot } from '../../platform/records/snapshot.js';
import type { Workload } from '../../platform/records/workload.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';
import { JOB_KIND_NEEDS } from './job-kind-needs.js';

/** What reading one REST route told. */
type RouteProbe =
  | { readonly answered: true; readonly data: unknown }
  | {
      readonly answered: false;
      readonly why: 'missing' | 'denied' | 'error';
      readonly message: string;
    };

/** The platform answered the route (a 404 for an id it listed means the route is not there). */
async function read(
  context: DoctorContext,
  operation: RestOperationId,
  params: Record<string, string> = {},
): Promise<RouteProbe> {
  try {
    const result = await context.client.rest.client.call(operation, z.unknown(), {
      params,
      query: operation.startsWith('list') ? { first: 5 } : {},
      signal: context.signal,
    });
    return { answered: true, data: result.data };
  } catch (error) {
    if (error instanceof NotFoundError) {
      return { answered: false, why: 'missing', message: error.platformMessage };
    }
    if (error instanceof PermissionError) {
      return { answered: false, why: 'denied', message: error.platformMessage };
    }
    return {
      answered: false,
      why: 'error',
      message: isPlatformError(error) ? error.message : String(error),
    };
  }
}

/**
 * The REST interface as the configured settings see it: reachable (`GET /workloads`, the
 * documented connectivity test), its records' shapes and words, and every read route paw's jobs
 * use, each with the ids the platform itself listed (a 404 then means the route is wrong).
 */
export async function restChecks(context: DoctorContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const blocks = context.settings.platform.api === 'rest';
  const push = (result: CheckResult): void => {
    context.report(result);
    results.push(result);
  };
  const routeFix = (operation: RestOperationId): string =>
    `set platform.routes.${operation} to where the platform serves it: paw doctor --write-routes FILE ` +
    'writes the routes its REST reference names; or use platform.api: graphql';

  const reachable = await read(context, 'listWorkloads');
  if (!reachable.answered) {
    push(
      check('rest.reachable', 'REST reachable (GET /workloads)', 'fail', reachable.message, {
        blocks,
        fix:
          reachable.why === 'denied'
            ? "the service account lacks a role that can read the inventory: give it one in the platform's access settings"
            : reachable.why === 'missing'
              ? routeFix('listWorkloads')
              : 'check the address in the credentials file and the network; -v shows each call',
      }),
    );
    return results;
  }
  push(
    check(
      'rest.reachable',
      'REST reachable (GET /workloads)',
      'ok',
      'the connectivity test answered',
      { blocks },
    ),
  );

  // Shapes and words: the records as paw reads them (through its field aliases).
  let workloads: Workload[] = [];
  try {
    workloads = await context.client.rest.workloads
      .list()
      .toArray(context.settings.platform.pageSize);
    push(
      check(
        'rest.shapes',
        'REST record shapes',
        'ok',
        `read ${workloads.length} workloads as paw reads them`,
        {
          blocks,
        },
      ),
    );
  } catch (error) {
    const keys = keysOf(reachable.data);
    push(
      check(
        'rest.shapes',
        'REST record shapes',
        'fail',
        `${error instanceof ProtocolError ? error.platformMessage : String(error)}; a workload has the fields ${keys}`,
        {
          blocks,
          fix: "map paw's fields to the platform's under platform.fieldAliases.workload (e.g. type: objectType; docs/configuration.md)",
        },
      ),
    );
  }
  push(vocabularyCheck(context, workloads));

  // Every read route, with ids the platform listed.
  const sample = workloads[0];
  const [sla] = await context.client.rest.slaDomains
    .list({}, context.signal)
    .toArray(1)
    .catch(() => []);
  const snapshots: Snapshot[] =
    sample === undefined
      ? []
      : await context.client.rest.workloads
          .snapshots(sample.id, context.signal)
          .toArray(20)
          .catch(() => []);
  const events: PlatformEvent[] = await context.client.rest.events
    .list({}, context.signal)
    .toArray(50)
    .catch(() => []);
  const jobId =
    snapshots.find((snapshot) => snapshot.jobId !== undefined)?.jobId ??
    events.find((event) => event.jobId != null && event.objectId === sample?.id)?.jobId ??
    undefined;

  const used = new Set(context.kinds.flatMap((kind) => JOB_KIND_NEEDS[kind].rest));
  const reads: [RestOperationId, Record<string, string> | undefined][] = [
    ['getWorkload', sample === undefined ? undefined : { workloadId: sample.id }],
    ['listWorkloadSnapshots', sample === undefined ? undefined : { workloadId: sample.id }],
    ['listSlaDomains', {}],
    ['getSlaDomain', sla === undefined ? undefined : { slaDomainId: sla.id }],
    ['listClusters', {}],
    ['listEvents', {}],
    [
      'getSnapshotJobStatus',
      sample === undefined || jobId == null
        ? undefined
        : {
            workloadId: sample.id,
            jobId,
            ...(sample.clusterId === undefined ? {} : { clusterId: sample.clusterId }),
          },
    ],
  ];
  for (const [operation, params] of reads) {
    const id = `rest.route.${operation}`;
    const title = `REST ${operation} (${context.client.rest.client.routes.method(operation)} ${context.client.rest.client.routes.path(operation)})`;
    const routeBlocks = blocks && used.has(operation);
    if (params === undefined) {
      push(
        check(id, title, 'skip', 'no id to read it with (the platform listed none)', {
          blocks: false,
          fix:
            operation === 'getSnapshotJobStatus'
              ? 'run paw doctor --allow-writes --workload ID --sla ID to take a snapshot and follow its job'
              : undefined,
        }),
      );
      continue;
    }
    const probe = await read(context, operation, params);
    if (probe.answered) {
      push(check(id, title, 'ok', 'answered', { blocks: routeBlocks }));
      if (operation === 'getSnapshotJobStatus') push(jobStatusWordCheck(context, probe.data));
    } else {
      push(
        check(
          id,
          title,
          probe.why === 'missing' ? 'fail' : probe.why === 'denied' ? 'fail' : 'warn',
          probe.message,
          {
            blocks: routeBlocks,
            fix:
              probe.why === 'missing'
                ? routeFix(operation)
                : probe.why === 'denied'
                  ? "the service account lacks a role that can read this: give it one in the platform's access settings"
                  : undefined,
          },
        ),
      );
    }
  }
  push(eventWordsCheck(context, events));

  // The writes paw's jobs make, asked about objects that do not exist: a permitted call finds
  // nothing (404), a refused one says what the account lacks (403). Nothing can change.
  const writes: [RestOperationId, Record<string, string>][] = [
    ['takeSnapshot', { workloadId: NOBODY }],
    ['pauseSlaDomain', { slaDomainId: NOBODY }],
    ['resumeSlaDomain', { slaDomainId: NOBODY }],
  ];
  for (const [operation, params] of writes) {
    if (!used.has(operation)) continue;
    const id = `rest.write.${operation}`;
    const title = `REST ${operation} allowed`;
    const probe = await write(context, operation, params);
    push(
      probe.found === 'denied'
        ? check(id, title, 'fail', 'refused: the account may not do this', {
            blocks,
            fix: "the service account lacks a role that can do this: give it one in the platform's access settings",
          })
        : probe.found === 'usable'
          ? check(id, title, 'ok', 'permitted', { blocks: false })
          : check(id, title, 'warn', probe.message, { blocks: false }),
    );
  }
  return results;
}

/** An id no object has. */
const NOBODY = '00000000-0000-4000-8000-000000000000';

/** A write to an object that does not exist: permitted (404), refused (403), or what else. */
async function write(
  context: DoctorContext,
  operation: RestOperationId,
  params: Record<string, string>,
): Promise<
  | { readonly found: 'usable' }
  | { readonly found: 'denied' }
  | { readonly found: 'error'; readonly message: string }
> {
  try {
    await context.client.rest.client.call(operation, z.unknown(), {
      params,
      body: operation === 'takeSnapshot' ? {} : { clusterIds: [NOBODY] },
      signal: context.signal,
    });
    return { found: 'usable' };
  } catch (error) {
    if (error instanceof PermissionError) return { found: 'denied' };
    if (error instanceof NotFoundError || (isPlatformError(error) && error.kind === 'invalid')) {
      return { found: 'usable' };
    }
    return { found: 'error', message: isPlatformError(error) ? error.message : String(error) };
  }
}

function vocabularyCheck(context: DoctorContext, workloads: readonly Workload[]): CheckResult {
  const { vocabulary } = context.client.api;
  const unknown = [...new Set(workloads.filter((w) => w.kind === undefined).map((w) => w.type))];
  const known = new Map<string, number>();
  for (const workload of workloads) {
    if (workload.kind !== undefined) {
      const label = `${workload.type}${workload.type === workload.kind ? '' : ` (${workload.kind})`}`;
      known.set(label, (known.get(label) ?? 0) + 1);
    }
  }
  const seen = [...known.entries()].map(([label, count]) => `${label} ×${count}`).join(', ');
  if (unknown.length > 0) {
    return check(
      'rest.vocabulary',
      'REST workload type words',
      'warn',
      `paw does not recognise ${unknown.map((word) => JSON.stringify(word)).join(', ')}` +
        (seen === '' ? '' : `; it knows ${seen}`),
      {
        blocks: false,
        fix:
          'such workloads are sent to the platform as they are (it decides); to select them by type or skip ' +
          `them with a reason, add each word under its kind in platform.vocabulary.workloadTypes (kinds: ${vocabulary.knownKinds().join(', ')})`,
      },
    );
  }
  return check(
    'rest.vocabulary',
    'REST workload type words',
    'ok',
    seen === '' ? 'no workloads listed' : seen,
    {
      blocks: false,
    },
  );
}

function jobStatusWordCheck(context: DoctorContext, data: unknown): CheckResult {
  const status =
    typeof data === 'object' && data !== null
      ? (data as Record<string, unknown>)['status']
      : undefined;
  const word = typeof status === 'string' ? status : undefined;
  const phase = word === undefined ? undefined : context.client.api.vocabulary.jobPhase(word);
  return phase === 'unrecognised'
    ? check(
        'rest.job-status-words',
        'REST job status words',
        'warn',
        `paw does not know the job status "${word}"`,
        {
          blocks: false,
          fix: 'add it under its phase in platform.vocabulary.jobStatuses (in_progress, succeeded, failed, canceled)',
        },
      )
    : check(
        'rest.job-status-words',
        'REST job status words',
        'ok',
        `a job reads "${word ?? '?'}" (${phase ?? '?'})`,
        {
          blocks: false,
        },
      );
}

function eventWordsCheck(context: DoctorContext, events: readonly PlatformEvent[]): CheckResult {
  const { vocabulary } = context.client.api;
  const statuses = new Set(
    events.map((event) => event.status).filter((word): word is string => word != null),
  );
  const unknown = [...statuses].filter(
    (word) => vocabulary.eventPhase(word) === 'unrecognised' && !/^(info|warning)$/i.test(word),
  );
  const backups = events.filter((event) => vocabulary.isEventType(event.type, 'backup')).length;
  if (unknown.length > 0) {
    return check(
      'rest.event-words',
      'REST event words',
      'warn',
      `paw does not know the event statuses ${unknown.join(', ')}`,
      {
        blocks: false,
        fix: 'add them under their phase in platform.vocabulary.eventStatuses',
      },
    );
  }
  return check(
    'rest.event-words',
    'REST event words',
    'ok',
    `${events.length} events read, ${backups} of them backups; statuses ${[...statuses].join(', ') || 'none'}`,
    { blocks: false },
  );
}

function keysOf(data: unknown): string {
  const nodes =
    typeof data === 'object' && data !== null ? (data as { nodes?: unknown }).nodes : undefined;
  const first = Array.isArray(nodes) ? (nodes[0] as unknown) : undefined;
  return typeof first === 'object' && first !== null
    ? Object.keys(first).join(', ')
    : '(none listed)';
}
