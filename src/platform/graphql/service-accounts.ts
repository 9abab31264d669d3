import { appendPath } from '../http/append-path.js';
import { resolvePlatformLink } from '../http/origin-guard.js';
import { TOKEN_ENDPOINT_PATH } from '../auth/credentials-file.js';
import { Paginated } from '../pagination/paginated.js';
import type { GraphqlClient } from './graphql-client.js';
import { parseServiceAccountId } from './service-account-id.js';
import {
  createServiceAccount,
  deleteServiceAccounts,
  listServiceAccounts,
  rotateServiceAccountSecret,
  updateRoleAssignments,
  type IssuedCredentials,
  type ServiceAccount,
} from './service-account-operations.js';

/** A new or rotated secret, with the token endpoint resolved to an absolute URL. */
export interface NewServiceAccountSecret extends Omit<IssuedCredentials, 'accessTokenUri'> {
  /** The token endpoint on the platform paw called: the only address these credentials go to. */
  readonly accessTokenUri: string;
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
        const connection = data.serviceAccounts;
        return {
          nodes: connection.nodes,
          count: connection.count ?? undefined,
          endCursor: connection.pageInfo.endCursor,
          hasNextPage: connection.pageInfo.hasNextPage,
        };
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
      { input: { name: input.name, description: input.description ?? '', roleIds: input.roleIds } },
      signal,
    );
    return this.withTokenUri(data.createServiceAccount, 'createServiceAccount');
  }

  /** Rotates an account's secret; the old one stops working at once. Store the new one. */
  async rotateSecret(account: string, signal?: AbortSignal): Promise<NewServiceAccountSecret> {
    const { uuid } = parseServiceAccountId(account, 'rotateServiceAccountSecret');
    const data = await this.graphql.request(
      rotateServiceAccountSecret,
      { input: { id: uuid } },
      signal,
    );
    return this.withTokenUri(data.rotateServiceAccountSecret, 'rotateServiceAccountSecret');
  }

  /** Replaces (overwrites) an account's role assignments. */
  async setRoles(account: string, roleIds: readonly string[], signal?: AbortSignal): Promise<void> {
    const { clientId } = parseServiceAccountId(account, 'updateRoleAssignments');
    await this.graphql.request(updateRoleAssignments, { userIds: [clientId], roleIds }, signal);
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
    if (answer === undefined || answer === '') return kept;
    const answered = resolvePlatformLink(answer, this.baseUrl, operation);
    if (isSameEndpoint(answered, trusted)) return kept;
    return {
      ...kept,
      refusedAccessTokenUri: `${answered.origin}${answered.pathname}`.slice(0, MAX_REPORTED_URI),
    };
  }
}
