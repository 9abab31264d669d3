import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { IssuedSecrets } from './issued-secrets.js';
import type { Permission, SimRole } from './permissions.js';

/** Who a token or session acts for. */
export type Principal =
  | { readonly kind: 'serviceAccount'; readonly uuid: string }
  | { readonly kind: 'user'; readonly userId: string };

export interface SimServiceAccount {
  /** The account's id: the uuid inside `clientId`. */
  readonly uuid: string;
  readonly clientId: string;
  readonly name: string;
  readonly description: string;
  secret: string;
  roleIds: string[];
  lastLogin: number | null;
  readonly integrationId: number | null;
  readonly integrationName: string | null;
}

export interface SimUser {
  readonly id: string;
  readonly email: string;
  roleIds: string[];
}

export interface SimPersonalAccessToken {
  readonly uuid: string;
  readonly clientId: string;
  readonly secret: string;
  readonly name: string;
  readonly ownerUserId: string;
}

export interface SimOAuthApp {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
  readonly scope: string;
}

export type CredentialCheck<T> =
  | { readonly ok: true; readonly account: T }
  | { readonly ok: false; readonly reason: 'unknownClient' | 'wrongSecret' };

/**
 * Roles, service accounts, users, personal access tokens and the OAuth application: who may
 * call the platform and with which permissions. Secrets are minted through {@link IssuedSecrets}.
 */
export class AccountDirectory {
  readonly roles = new Map<string, SimRole>();
  /** By uuid, in creation order. */
  readonly serviceAccounts = new Map<string, SimServiceAccount>();
  readonly users = new Map<string, SimUser>();
  readonly personalAccessTokens = new Map<string, SimPersonalAccessToken>();
  oauthApp: SimOAuthApp | undefined;

  constructor(private readonly secrets: IssuedSecrets) {}

  addRole(role: SimRole): void {
    this.roles.set(role.id, role);
  }

  createServiceAccount(input: {
    name: string;
    description?: string;
    roleIds: readonly string[];
    uuid?: string;
    integration?: { id: number; name: string };
  }): SimServiceAccount {
    const uuid = input.uuid ?? randomUUID();
    const account: SimServiceAccount = {
      uuid,
      clientId: `client|${uuid}`,
      name: input.name,
      description: input.description ?? '',
      secret: this.secrets.mint('clientSecrets'),
      roleIds: [...input.roleIds],
      lastLogin: null,
      integrationId: input.integration?.id ?? null,
      integrationName: input.integration?.name ?? null,
    };
    this.serviceAccounts.set(uuid, account);
    return account;
  }

  /** Accepts `client|<uuid>` or the bare uuid. */
  findServiceAccount(id: string): SimServiceAccount | undefined {
    return this.serviceAccounts.get(id.startsWith('client|') ? id.slice('client|'.length) : id);
  }

  checkServiceAccountSecret(clientId: string, secret: string): CredentialCheck<SimServiceAccount> {
    const account = clientId.startsWith('client|') ? this.findServiceAccount(clientId) : undefined;
    if (account === undefined) return { ok: false, reason: 'unknownClient' };
    if (!sameSecret(account.secret, secret)) return { ok: false, reason: 'wrongSecret' };
    return { ok: true, account };
  }

  /** A new secret; the old one stops working at once. */
  rotateSecret(account: SimServiceAccount): string {
    account.secret = this.secrets.mint('clientSecrets');
    return account.secret;
  }

  deleteServiceAccount(uuid: string): boolean {
    return this.serviceAccounts.delete(uuid);
  }

  addUser(user: SimUser): void {
    this.users.set(user.id, user);
  }

  createPersonalAccessToken(input: {
    uuid: string;
    name: string;
    ownerUserId: string;
  }): SimPersonalAccessToken {
    const pat: SimPersonalAccessToken = {
      uuid: input.uuid,
      clientId: `pat|${input.uuid}`,
      secret: this.secrets.mint('clientSecrets'),
      name: input.name,
      ownerUserId: input.ownerUserId,
    };
    this.personalAccessTokens.set(pat.clientId, pat);
    return pat;
  }

  checkPersonalAccessToken(
    clientId: string,
    secret: string,
  ): CredentialCheck<SimPersonalAccessToken> {
    const pat = this.personalAccessTokens.get(clientId);
    if (pat === undefined || !this.users.has(pat.ownerUserId))
      return { ok: false, reason: 'unknownClient' };
    if (!sameSecret(pat.secret, secret)) return { ok: false, reason: 'wrongSecret' };
    return { ok: true, account: pat };
  }

  registerOAuthApp(input: {
    clientId: string;
    name: string;
    redirectUris: readonly string[];
    scope: string;
  }): SimOAuthApp {
    this.oauthApp = { ...input, clientSecret: this.secrets.mint('clientSecrets') };
    return this.oauthApp;
  }

  /** The principal's permissions now; undefined when the principal no longer exists. */
  permissionsOf(principal: Principal): ReadonlySet<Permission> | undefined {
    const roleIds =
      principal.kind === 'serviceAccount'
        ? this.serviceAccounts.get(principal.uuid)?.roleIds
        : this.users.get(principal.userId)?.roleIds;
    if (roleIds === undefined) return undefined;
    const permissions = new Set<Permission>();
    for (const roleId of roleIds) {
      for (const permission of this.roles.get(roleId)?.permissions ?? [])
        permissions.add(permission);
    }
    return permissions;
  }

  /**
   * How the platform names the principal where it records who did something (an SLA Domain's
   * `pausedBy`): a service account's name, a user's email.
   */
  nameOf(principal: Principal): string {
    return principal.kind === 'serviceAccount'
      ? (this.serviceAccounts.get(principal.uuid)?.name ?? principal.uuid)
      : (this.users.get(principal.userId)?.email ?? principal.userId);
  }

  exists(principal: Principal): boolean {
    return principal.kind === 'serviceAccount'
      ? this.serviceAccounts.has(principal.uuid)
      : this.users.has(principal.userId);
  }
}

/** Constant-time comparison, as a real credential check would do. */
function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
