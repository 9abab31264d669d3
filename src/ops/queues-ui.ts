import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { Queue } from 'bullmq';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { WatchedQueue } from './dashboard/dashboard-model.js';
import type { OperatorActions } from '../outcomes/operator-actions.js';

/** Where bull-board is served. */
const QUEUES_UI_PATH = '/queues';

/**
 * bull-board's actions, and whether paw lets them through. Retrying, promoting and pausing go
 * through BullMQ as they would through paw (its processors are safe to repeat). Removing,
 * cleaning, emptying or editing a job would lose what paw's bookkeeping relies on (a window's
 * resume job, a run's items): those are refused, and paw's own commands do them instead.
 */
const ACTIONS: readonly {
  readonly pattern: RegExp;
  readonly action: string;
  readonly allowed: boolean;
}[] = [
  {
    pattern: /^\/api\/queues\/(pause|resume)$/,
    action: 'pause or resume all queues',
    allowed: true,
  },
  {
    pattern: /^\/api\/queues\/[^/]+\/(pause|resume)$/,
    action: 'pause or resume a queue',
    allowed: true,
  },
  { pattern: /^\/api\/queues\/[^/]+\/retry\/[^/]+$/, action: 'retry jobs', allowed: true },
  { pattern: /^\/api\/queues\/[^/]+\/promote$/, action: 'promote delayed jobs', allowed: true },
  { pattern: /^\/api\/queues\/[^/]+\/[^/]+\/retry$/, action: 'retry a job', allowed: true },
  { pattern: /^\/api\/queues\/[^/]+\/[^/]+\/promote$/, action: 'promote a job', allowed: true },
];

/**
 * Registers bull-board (the queues, their jobs, retries and failures) at `/queues`. In read-only
 * mode every state change is refused (bull-board itself would answer 200 to "pause all" and
 * pause nothing); in write mode only the actions above pass, each recorded with who did it.
 */
export async function registerQueuesUi(
  app: FastifyInstance,
  queues: readonly WatchedQueue[],
  options: {
    readonly readOnly: boolean;
    readonly redis: Redis;
    readonly actions: OperatorActions;
  },
): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUES_UI_PATH);
  createBullBoard({
    queues: queues.map(
      ({ kind, queue }) =>
        new PawQueueAdapter(queue, options.redis, {
          readOnlyMode: options.readOnly,
          description: kind === 'notify' ? 'run-summary notifications' : `${kind} jobs`,
        }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'paw queues' } },
  });
  await app.register(
    async (scope) => {
      scope.addHook('preHandler', (request, reply) => guard(request, reply, options));
      await scope.register(serverAdapter.registerPlugin());
    },
    { prefix: QUEUES_UI_PATH },
  );
}

async function guard(
  request: FastifyRequest,
  reply: FastifyReply,
  options: { readonly readOnly: boolean; readonly actions: OperatorActions },
): Promise<void> {
  if (['GET', 'HEAD', 'OPTIONS'].includes(request.method)) return;
  const path = (request.url.split('?')[0] ?? '').slice(QUEUES_UI_PATH.length);
  const known = ACTIONS.find((entry) => entry.pattern.test(path));
  const user = request.opsUser ?? { name: 'unknown', via: 'open' as const };
  const target = `${request.method} ${QUEUES_UI_PATH}${path}`;
  let refusal: string | undefined;
  if (options.readOnly) {
    refusal = '/queues is read-only (http.queuesReadOnly): nothing was changed';
  } else if (known?.allowed !== true) {
    refusal =
      "removing, cleaning, emptying or editing paw's jobs would break its records: use paw's " +
      'commands (paw runs, paw outcomes, paw run) instead; nothing was changed';
  }
  await options.actions.record({
    user: user.name,
    via: user.via,
    action: known?.action ?? 'other',
    target,
    outcome: refusal === undefined ? 'done' : 'refused',
  });
  if (refusal !== undefined) await reply.code(403).send({ error: refusal });
}

/**
 * bull-board's BullMQ adapter, reading Redis's INFO from paw's own connection: the adapter asks
 * `queue.client`, which BullMQ 6 no longer has (`/queues/api/redis/stats` answered 500).
 */
class PawQueueAdapter extends BullMQAdapter {
  constructor(
    queue: Queue,
    private readonly redis: Redis,
    options: ConstructorParameters<typeof BullMQAdapter>[1],
  ) {
    super(queue, options);
  }

  override async getRedisInfo(): Promise<string> {
    return this.redis.info();
  }
}
