import { InvalidRequestError } from '../http/platform-errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ServiceAccountId {
  /** `client|<uuid>`: what the platform shows and what `updateRoleAssignments` takes. */
  readonly clientId: string;
  /** The bare uuid: what rotation and deletion take (a service account has no other id). */
  readonly uuid: string;
}

/**
 * A service account's id from `client|<uuid>` or a bare uuid. Anything else is refused before a
 * request is sent (an InvalidRequestError without a status).
 */
export function parseServiceAccountId(input: string, operation: string): ServiceAccountId {
  const trimmed = input.trim();
  const uuid = trimmed.startsWith('client|') ? trimmed.slice('client|'.length) : trimmed;
  if (!UUID.test(uuid)) {
    throw new InvalidRequestError({
      operation,
      code: 'INVALID_SERVICE_ACCOUNT_ID',
      message: `"${input}" is not a service-account id; expected client|<uuid> (as \`paw accounts list\` shows) or the bare uuid`,
      mayHaveTakenEffect: false,
    });
  }
  return { clientId: `client|${uuid}`, uuid };
}
