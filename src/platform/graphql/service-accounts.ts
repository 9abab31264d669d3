import { appendPath } from '../http/append-path.js';
import { resolvePlatformLink } from '../http/origin-guard.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/credentials-file.js';
import { Secret } from '../../config/secret.js';
import { Paginated } from '../pagination/paginated.js';
import { pageOf } from './connection.js';
import type { GraphqlClient } from './graphql-client.js';
import { parseServiceAccountId } from './service-account-id.js';
import {
  createServiceAccount,
  deleteServiceAccounts,
  listServiceAccounts,
  rotateServiceAccountSecret,
  updateRoleAssignments,
  type ServiceAccount,
} from './service-account-operations.js';

/** What the platform answers when it issues a secret, the secret wrapped the moment it is read. */
interface IssuedCredentials {
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly accessTokenUri: string;
  readonly name: string;
}

/** A new or rotated secret, with the token endpoint resolved to an absolute URL. */
export interface NewServiceAccountSecret extends Omit<IssuedCredentials, 'accessTokenUri'> {
  /** The token endpoint on the platform paw called: the only address these credentials go to. */
  readonly accessTokenUri: string;
  /**
   * Quorum-authorization policies the rotation suspended (a rotation only): an operator must
   * know, since changes those policies guarded no longer wait for approval.
   */
  readonly suspendedTprPolicyIds?: readonly string[];
  /**
   * The token address the platform's answer named instead, when it named another one (its
   * origin and path): never written into a credentials file, reported. On another origin, the
   * next user of the file would post the secret there; on this origin with another path, the
   * file would name no token endpoint, and break once the old secret is dead.
   */
  readonly refusedAccessTokenUri?: string;
}

/** The longest refused token address reported (the answer is the platform's, not paw's). */
const MAX_REPORTED_URI = 200;

/** Whether `answered` names the endpoint `trusted` is, a trailing slash aside. */
function isSameEndpoint(answered: URL, trusted: URL): boolean {
  return (
    answered.origin === trusted.origin &&
    answered.pathname.replace(/\/+$/, '') === trusted.pathname &&
    answered.search === '' &&
    answered.username === '' &&
    answered.password === ''
  );
}

/** Service-account management through GraphQL (spec 4.3). */
export class ServiceAccountsApi {
  constructor(
    private readonly graphql: GraphqlClient,
    private readonly baseUrl: URL,
    private readonly pageSize: number,
  ) {}

  list(signal?: AbortSignal): Paginated<ServiceAccount> {
    return new Paginated(
      'serviceAccounts',
      async (after, pageSignal) => {
        const data = await this.graphql.request(
          listServiceAccounts,
          { first: this.pageSize, after: after ?? null },
          pageSignal,
        );
        return pageOf(data.serviceAccounts);
      },
      signal,
    );
  }

  /** Creates an account. Its secret is in the result and can never be read again: store it. */
  async create(
    input: { name: string; description?: string | undefined; roleIds: readonly string[] },
    signal?: AbortSignal,
  ): Promise<NewServiceAccountSecret> {
    const data = await this.graphql.request(
      createServiceAccount,
      {
        input: {
          name: input.name,
          description: input.description ?? '',
          roleIds: [...input.roleIds],
        },
      },
      signal,
    );
    return this.withTokenUri(issued(data.createServiceAccount), 'createServiceAccount');
  }

  /** Rotates an account's secret; the old one stops working at once. Store the new one. */
  async rotateSecret(account: string, signal?: AbortSignal): Promise<NewServiceAccountSecret> {
    const { uuid } = parseServiceAccountId(account, 'rotateServiceAccountSecret');
    const data = await this.graphql.request(
      rotateServiceAccountSecret,
      { input: { id: uuid } },
      signal,
    );
    const reply = data.rotateServiceAccountSecret;
    return {
      ...this.withTokenUri(issued(reply), 'rotateServiceAccountSecret'),
      suspendedTprPolicyIds: reply.suspendedTprPolicyIds,
    };
  }

  /** Replaces (overwrites) an account's role assignments. */
  async setRoles(account: string, roleIds: readonly string[], signal?: AbortSignal): Promise<void> {
    const { clientId } = parseServiceAccountId(account, 'updateRoleAssignments');
    await this.graphql.request(
      updateRoleAssignments,
      { userIds: [clientId], roleIds: [...roleIds] },
      signal,
    );
  }

  async delete(accounts: readonly string[], signal?: AbortSignal): Promise<void> {
    const ids = accounts.map(
      (account) => parseServiceAccountId(account, 'deleteServiceAccountsFromAccount').uuid,
    );
    await this.graphql.request(deleteServiceAccounts, { input: { ids } }, signal);
  }

  /**
   * The token endpoint to keep with the new secret: always the endpoint of the platform paw
   * called, `{base_url}/api/client_token`. The form of the answer's `accessTokenUri` is left
   * open (a relative one is resolved against `{base_url}`, a missing one is that endpoint); one
   * that resolves to anything else (another origin, another path such as the
   * `http:host:port/...` a lax parser makes `/host:port/...`, a query, user info) is not stored,
   * since a credentials file's `{base_url}` is its token address less `/api/client_token`, and
   * is reported.
   */
  private withTokenUri(issued: IssuedCredentials, operation: string): NewServiceAccountSecret {
    const trusted = appendPath(this.baseUrl, TOKEN_ENDPOINT_PATH);
    const { accessTokenUri: answer, ...rest } = issued;
    const kept = { ...rest, accessTokenUri: trusted.href };
    if (answer === '') return kept;
    const answered = resolvePlatformLink(answer, this.baseUrl, operation);
    if (isSameEndpoint(answered, trusted)) return kept;
    return {
      ...kept,
      refusedAccessTokenUri: `${answered.origin}${answered.pathname}`.slice(0, MAX_REPORTED_URI),
    };
  }
}

/** The issued credentials, the secret wrapped at once so that nothing can print it. */
function issued(reply: {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly accessTokenUri: string;
  readonly name: string;
}): IssuedCredentials {
  return {
    clientId: reply.clientId,
    clientSecret: new Secret(reply.clientSecret),
    accessTokenUri: reply.accessTokenUri,
    name: reply.name,
  };
}
