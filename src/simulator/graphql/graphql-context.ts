import { GraphQLError } from 'graphql';
import { randomUUID } from 'node:crypto';
import type { Principal } from '../accounts.js';
import type { Permission } from '../permissions.js';
import { RestError } from '../rest-error.js';
import type { SimulatorState } from '../simulator-state.js';
import type { WithheldFields } from './withheld-fields.js';

/** What every resolver gets: the simulator, who is calling, and what this answer withholds. */
export interface GraphqlContext {
  readonly state: SimulatorState;
  readonly principal: Principal;
  readonly withheld: WithheldFields;
}

/** How the platform's not-found messages start (docs/simulator.md, "Answer shapes"). */
const NOT_FOUND = 'NOT_FOUND: ';

/**
 * A field error the way the platform reports it: `extensions.code` is an HTTP-like number, and a
 * not-found message starts `NOT_FOUND: `.
 */
export function fieldError(code: 400 | 403 | 404 | 500, message: string): GraphQLError {
  const text = code === 404 && !message.startsWith(NOT_FOUND) ? `${NOT_FOUND}${message}` : message;
  return new GraphQLError(text, { extensions: { code, trace: { traceId: randomUUID() } } });
}

/**
 * A 400 field error about one argument (`filter.orgId`, `sortBy`): a value the simulator
 * refuses, or cannot serve, says so rather than being ignored.
 */
export function argumentError(argument: string, message: string): GraphQLError {
  return fieldError(400, `${argument}: ${message}`);
}

/** A list argument that filters: null and an empty list filter nothing. */
export function given<T>(list: readonly T[] | null | undefined): readonly T[] | undefined {
  return list == null || list.length === 0 ? undefined : list;
}

/** What passes every check: undefined (everything passes) when there is none. */
export function allOf<T>(
  checks: readonly ((item: T) => boolean)[],
): ((item: T) => boolean) | undefined {
  return checks.length === 0 ? undefined : (item) => checks.every((check) => check(item));
}

/** An argument the simulator cannot honour: a field error when the caller gives it. */
export function refuseGiven(argument: string, value: unknown, why: string): void {
  const isGiven = Array.isArray(value) ? value.length > 0 : value != null;
  if (isGiven) throw argumentError(argument, `the simulator cannot filter by it (${why})`);
}

/** A `DateTime` argument as epoch milliseconds; a string that is not one is a field error. */
export function dateTimeArgument(argument: string, value: unknown): number | undefined {
  if (value == null) return undefined;
  // A custom scalar reaches resolvers as the client sent it: a number or a bad string too.
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw argumentError(
      argument,
      `${JSON.stringify(value)} is not a DateTime (ISO 8601, e.g. 2026-01-31T22:00:00Z)`,
    );
  }
  return time;
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
