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
   * The origin the platform's answer named instead, when it named another one: never written
   * into a credentials file (the next user of the file would post the secret there), reported.
   */
  readonly refusedAccessTokenOrigin?: string;
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
   * The token endpoint to keep with the new secret. The spec leaves the form of
   * `accessTokenUri` open: a relative one is resolved against `{base_url}`, a missing one is the
   * platform's token endpoint. One on another origin is not trusted: the credentials keep the
   * endpoint of the platform paw called, and the other origin is reported.
   */
  private withTokenUri(issued: IssuedCredentials, operation: string): NewServiceAccountSecret {
    const trusted = appendPath(this.baseUrl, TOKEN_ENDPOINT_PATH);
    const answered =
      issued.accessTokenUri === undefined || issued.accessTokenUri === ''
        ? trusted
        : resolvePlatformLink(issued.accessTokenUri, this.baseUrl, operation);
    const { accessTokenUri: _answered, ...rest } = issued;
    return answered.origin === this.baseUrl.origin
      ? { ...rest, accessTokenUri: answered.href }
      : { ...rest, accessTokenUri: trusted.href, refusedAccessTokenOrigin: answered.origin };
  }
}
