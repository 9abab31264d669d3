import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Settings } from '../config/settings-schema.js';
import type { Outcomes } from '../outcomes/outcomes.js';
import type { JobDefinition } from '../definitions/job-definition.js';
import { ITEM_STATUSES, type ItemStatus } from '../outcomes/outcome-status.js';
import type { RunQueues } from '../queue/run-queues.js';
import type { OperatorActions } from '../outcomes/operator-actions.js';
import { RetryRefusedError, RunRetry, type RetryRefusal } from '../scheduler/run-retry.js';

/** Longest reason kept: it is a note for the record, not a document. */
const MAX_REASON = 500;

/** The HTTP status of each refusal: an unknown run is not found, the others conflict with its state. */
const REFUSAL_STATUS: Record<RetryRefusal, number> = {
  'unknown-run': 404,
  active: 409,
  'not-snapshot': 409,
  'no-definition': 409,
};

/**
 * `POST /api/runs/:runId/retry` with `{ "reason": "…", "statuses"?: [...] }`: the dashboard's
 * retry button, the same as `paw retry <runId>` (RunRetry). It passes the ops server's rules
 * for changes: the caller is authenticated and, from a browser, on this server's own origin
 * (OpsAccess, before any route); the server is in write mode (`http.queuesReadOnly: false`,
 * the setting that lets `/queues` change jobs too). Every call is recorded in the operator
 * actions (`/api/actions`) with who, why and what came of it, refusals included.
 */
export function registerRetryRoute(
  app: FastifyInstance,
  context: {
    readonly outcomes: Outcomes;
    readonly redis: Redis;
    readonly settings: Settings;
    readonly queues: RunQueues;
    readonly actions: OperatorActions;
    /** The definitions loaded now; undefined in a process that loads none (a worker). */
    readonly definitions: () => readonly JobDefinition[] | undefined;
  },
): void {
  const { settings, actions } = context;
  const retry = new RunRetry(
    context.outcomes,
    context.redis,
    settings.redis.prefix,
    context.queues,
    actions,
    settings.outcomes.retentionDays * 86_400,
  );
  app.post<{ Params: { runId: string }; Body: unknown }>(
    '/api/runs/:runId/retry',
    async (request, reply) => {
      const user = request.opsUser ?? { name: 'unknown', via: 'open' as const };
      const { runId } = request.params;
      const body = (request.body ?? {}) as { reason?: unknown; statuses?: unknown };
      const reason = typeof body.reason === 'string' ? body.reason.trim() : '';
      const refuse = async (code: number, error: string) => {
        await actions.record({
          user: user.name,
          via: user.via,
          action: 'retry run',
          target: runId,
          outcome: 'refused',
          detail: error,
          ...(reason === '' ? {} : { reason: reason.slice(0, MAX_REASON) }),
        });
        return reply.code(code).send({ error });
      };

      if (settings.http.queuesReadOnly) {
        return refuse(
          403,
          `the ops server is read-only (http.queuesReadOnly): nothing was changed; run paw retry ${runId}, or set PAW_HTTP_QUEUES_READ_ONLY=false`,
        );
      }
      const definitions = context.definitions();
      if (definitions === undefined) {
        return refuse(
          409,
          `this process loaded no job definitions (a worker): retry from a scheduler's dashboard, or run paw retry ${runId}`,
        );
      }
      if (reason === '' || reason.length > MAX_REASON) {
        return refuse(400, `say why in "reason" (1 to ${MAX_REASON} characters)`);
      }
      const statuses = parseStatuses(body.statuses);
      if (statuses === null) {
        return refuse(400, `"statuses" must be a list of: ${ITEM_STATUSES.join(', ')}`);
      }
      try {
        const result = await retry.retry(definitions, {
          runId,
          by: user.name,
          via: user.via,
          reason,
          ...(statuses === undefined ? {} : { statuses }),
        });
        return reply.code(result.outcome === 'started' ? 201 : 200).send(result);
      } catch (error) {
        // RunRetry has recorded the refusal with its reason.
        if (error instanceof RetryRefusedError) {
          return reply.code(REFUSAL_STATUS[error.refusal]).send({ error: error.message });
        }
        throw error;
      }
    },
  );
}

/** The statuses asked for: undefined when absent (the default), null when not a list of statuses. */
function parseStatuses(value: unknown): ItemStatus[] | undefined | null {
  if (value === undefined) return undefined;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((status) => (ITEM_STATUSES as readonly unknown[]).includes(status))
  ) {
    return null;
  }
  return value as ItemStatus[];
}
