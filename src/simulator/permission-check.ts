import type { FastifyRequest } from 'fastify';
import type { Permission } from './permissions.js';
import { RestError } from './rest-error.js';
import type { SimulatorState } from './simulator-state.js';

/** Throws PERMISSION_DENIED (403) unless the authenticated caller's roles grant `permission`. */
export function requirePermission(
  state: SimulatorState,
  request: FastifyRequest,
  permission: Permission,
): void {
  const permissions =
    request.principal === null ? undefined : state.accounts.permissionsOf(request.principal);
  if (permissions?.has(permission) !== true) {
    throw new RestError(403, 'PERMISSION_DENIED', `the caller's roles do not grant ${permission}`);
  }
}
