import { hostname, userInfo } from 'node:os';

/** Who runs a command, as operator actions and pauses record it: `user@host`. */
export function operatorName(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): the host alone says where it came from.
  }
  return `${user}@${hostname()}`;
}
