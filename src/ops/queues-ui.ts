import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { FastifyInstance } from 'fastify';
import type { WatchedQueue } from './dashboard/dashboard-model.js';

/** Where bull-board is served. */
export const QUEUES_UI_PATH = '/queues';

/**
 * Registers bull-board (the queues, their jobs, retries and failures) at `/queues`. Read-only
 * unless `readOnly` is false: with it off, anyone who reaches the port can retry, promote,
 * clean and remove jobs.
 */
export async function registerQueuesUi(
  app: FastifyInstance,
  queues: readonly WatchedQueue[],
  options: { readonly readOnly: boolean },
): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(QUEUES_UI_PATH);
  createBullBoard({
    queues: queues.map(
      ({ kind, queue }) =>
        new BullMQAdapter(queue, {
          readOnlyMode: options.readOnly,
          description: kind === 'notify' ? 'run-summary notifications' : `${kind} jobs`,
        }),
    ),
    serverAdapter,
    options: { uiConfig: { boardTitle: 'paw queues' } },
  });
  await app.register(serverAdapter.registerPlugin(), { prefix: QUEUES_UI_PATH });
}
