import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Refuses a query parameter given more than once (`?stale=1h&stale=2h`), naming it: every
 * parameter of the ops server's routes (bull-board's too) takes one value, and the parser
 * makes a repeated one a list that no route expects (it was a 500 with an internal message).
 * A `preValidation` hook: it runs after the access check, so it tells nothing to a stranger.
 */
export async function refuseRepeatedQuery(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const query = request.query as Record<string, unknown> | undefined;
  if (query === undefined || query === null) return;
  const repeated = Object.keys(query).filter((name) => Array.isArray(query[name]));
  if (repeated.length === 0) return;
  await reply.code(400).send({
    error: `query parameter ${repeated.join(', ')} given more than once: give each parameter once`,
  });
}
