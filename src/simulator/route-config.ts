import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessToken } from './access-tokens.js';
import type { Principal } from './accounts.js';
import type { OperationId } from './operation-ids.js';

/** Which error format an operation answers in (for injected error faults). */
export type ErrorSurface = 'rest' | 'gateway' | 'token' | 'graphql' | 'oauth' | 'cluster';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Set on every simulated platform operation: faults and statistics key on it. */
    operationId?: OperationId;
    /** The gateway demands a valid platform access token. */
    bearerAuth?: boolean;
    /** Counted against the platform API's token bucket (every `/api/...` route). */
    rateLimited?: boolean;
    surface?: ErrorSurface;
  }

  interface FastifyRequest {
    /** Who the gateway authenticated (routes with `bearerAuth`). */
    principal: Principal | null;
    accessToken: AccessToken | null;
    /** An injected fault asks for this response's body to be mangled. */
    malformed: boolean;
    /** Injected latency still to be spent before the handler runs (ms). */
    latencyMs: number;
  }
}

/** A fastify instance whose routes take zod schemas. */
export type ZodApp = FastifyInstance<
  RawServerDefault,
  IncomingMessage,
  ServerResponse,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** Route config of an operation. */
export function operation(
  operationId: OperationId,
  surface: ErrorSurface,
  flags: { bearerAuth?: boolean; rateLimited?: boolean } = {},
): { operationId: OperationId; surface: ErrorSurface; bearerAuth: boolean; rateLimited: boolean } {
  return {
    operationId,
    surface,
    bearerAuth: flags.bearerAuth ?? false,
    rateLimited: flags.rateLimited ?? false,
  };
}
