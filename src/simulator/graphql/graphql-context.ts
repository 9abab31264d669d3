import { GraphQLError } from 'graphql';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../accounts.js';
import type { Permission } from '../permissions.js';
import { RestError } from '../rest-error.js';
import type { SimulatorState } from '../simulator-state.js';

/** What every resolver gets: the simulator and who is calling. */
export interface GraphqlContext {
  readonly state: SimulatorState;
  readonly principal: Principal;
}

/** A field error the way the platform reports it: `extensions.code` is an HTTP-like number. */
export function fieldError(code: 400 | 403 | 404 | 500, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, trace: { traceId: randomUUID() } } });
}

export function requireGrant(context: GraphqlContext, permission: Permission): void {
  if (context.state.accounts.permissionsOf(context.principal)?.has(permission) !== true) {
    throw fieldError(403, `Access denied: the caller's roles do not grant ${permission}`);
  }
}

/**
 * Runs what the REST routes share (stores, the trigger rules) and reports their RestErrors as
 * GraphQL field errors: a disconnected cluster (503 there) is a 500 here, with its message.
 */
export function asFieldErrors<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof RestError) {
      const code =
        error.status === 400 || error.status === 403 || error.status === 404 ? error.status : 500;
      throw fieldError(code, error.message);
    }
    throw error;
  }
}
