import { stat } from 'node:fs/promises';
import { PAW_VERSION } from '../shared/paw-version.js';
import type { Settings } from '../config/settings-schema.js';
import { UsageError } from '../shared/usage-error.js';
import type { Logger } from '../shared/logger.js';
import type { Secret } from '../config/secret.js';
import { AccessTokens } from './auth/access-tokens.js';
import { resolveCredentialsSource, type CredentialsSource } from './auth/credentials-source.js';
import { TokenProvider } from './auth/token-provider.js';
import {
  ClusterSessions,
  type ClusterCredentialKind,
  type ClusterCredentials,
} from './cluster/cluster-sessions.js';
import { GraphqlClient } from './graphql/graphql-client.js';
import { ServiceAccountsApi } from './graphql/service-accounts.js';
import { HttpCaller } from './http/http-caller.js';
import { HttpTransport } from './http/http-transport.js';
import type { RequestGate } from './rate-limit/request-gate.js';
import { TokenBucketGate } from './rate-limit/token-bucket-gate.js';
import type { OAuthToken } from './oauth/code-exchange.js';
import { loginWithPkce, type OAuthApplication } from './oauth/pkce-login.js';
import type { PlatformObserver } from './platform-observer.js';
import type { PlatformApi } from './api/platform-api.js';
import { GraphqlClusters } from './graphql/graphql-clusters.js';
import { GraphqlEvents } from './graphql/graphql-events.js';
import { GraphqlSlaDomains } from './graphql/graphql-sla-domains.js';
import { GraphqlWorkloads } from './graphql/graphql-workloads.js';
import { ClustersApi } from './rest/clusters.js';
import { EventsApi } from './rest/events.js';
import { FieldAliases } from './rest/field-aliases.js';
import { RestClient } from './rest/rest-client.js';
import { findRestReference } from './rest/rest-reference.js';
import { RouteTable } from './rest/route-table.js';
import { SlaDomainsApi } from './rest/sla-domains.js';
import { RestWorkloads } from './rest/workloads.js';
import { Vocabulary } from './vocabulary/vocabulary.js';

export interface PlatformClientOptions {
  /** Only the `platform` section is read. */
  readonly settings: Pick<Settings, 'platform'>;
  readonly logger: Logger;
  /**
   * The request gate every platform call passes; an in-process token bucket at
   * `platform.requestsPerSecond` by default. The worker passes one shared through Redis.
   */
  readonly requestGate?: RequestGate;
  /** The clock for token and session expiry; only tests about time pass one. */
  readonly now?: () => number;
  /**
   * Told about every request attempt and token refresh (paw's processes feed their metrics
   * with it, see src/ops/metrics/). Events never carry a URL, a header or a body.
   */
  readonly observer?: PlatformObserver;
}

/**
 * The task-based REST interface, one object per resource group. Jobs and commands use
 * {@link PlatformClient.api} instead; this is for what only REST offers (creating, changing and
 * assigning SLA Domains) and for `paw doctor`'s checks of the REST interface itself.
 */
interface RestApis extends PlatformApi {
  readonly kind: 'rest';
  readonly workloads: RestWorkloads;
  readonly slaDomains: SlaDomainsApi;
  readonly clusters: ClustersApi;
  readonly events: EventsApi;
  /** The underlying client, for operations the groups do not wrap. */
  readonly client: RestClient;
  /** The platform's own REST reference (its OpenAPI document), found from its docs page. */
  reference(signal?: AbortSignal): ReturnType<typeof findRestReference>;
}

interface GraphqlApis extends PlatformApi {
  readonly kind: 'graphql';
  readonly serviceAccounts: ServiceAccountsApi;
  readonly client: GraphqlClient;
  /**
   * Service-account operations authenticated with exactly `token` instead of the client's cached
   * one (no refresh, no replay with another token): secret rotation uses a recovery token that
   * stays valid after the secret it was issued for is rotated.
   */
  serviceAccountsWith(token: Secret): ServiceAccountsApi;
}

interface OAuthLogin {
  /**
   * The authorization code with PKCE flow for a user at a terminal, with the OAuth application
   * from the settings (`platform.oauth`, PAW_OAUTH_*) unless one is given.
   */
  login(options: {
    readonly onAuthorizeUrl: (url: URL) => void;
    readonly application?: Partial<OAuthApplication>;
    readonly timeoutMs?: number;
    readonly signal?: AbortSignal;
  }): Promise<OAuthToken>;
}

export interface PlatformClient {
  /** `{base_url}`. */
  readonly baseUrl: URL;
  /** Where the service-account credentials come from. */
  readonly credentials: CredentialsSource;
  /**
   * The interface `platform.api` chose, for everything paw's jobs and commands do: the same
   * operations, records and words through REST or GraphQL.
   */
  readonly api: PlatformApi;
  readonly rest: RestApis;
  readonly graphql: GraphqlApis;
  readonly clusters: ClusterSessions;
  readonly oauth: OAuthLogin;
  /** The platform access token (exposed for diagnostics: `tokens.stats`). */
  readonly tokens: TokenProvider;
  /** Tokens outside the cache: issue one with given credentials, revoke one. */
  readonly accessTokens: AccessTokens;
  /** Requests of this process waiting for their turn at the request gate (RequestGate.waiting). */
  requestsWaiting(): number;
  /**
   * Deletes the cluster sessions still open, revokes the platform session and closes the
   * connections. Never throws; call it once, when the process is done with the platform.
   */
  close(): Promise<void>;
}

/**
 * The one way into the platform for the rest of paw. Resolves the credentials (a UsageError
 * says how to provide them when they are missing or contradictory), and wires transport, request
 * gate, retry layer, token provider, REST, GraphQL, cluster sessions and OAuth together.
 */
export async function createPlatformClient(
  options: PlatformClientOptions,
): Promise<PlatformClient> {
  const platform = options.settings.platform;
  const logger = options.logger.child({ component: 'platform' });
  const credentials = await resolveCredentialsSource(platform);
  const baseUrl = credentials.baseUrl;
  if (platform.credentialsFile !== undefined) {
    await warnIfReadableByOthers(platform.credentialsFile, logger);
  }

  const transport = new HttpTransport(platform.timeouts);
  const gate =
    options.requestGate ?? new TokenBucketGate({ requestsPerSecond: platform.requestsPerSecond });
  const http = new HttpCaller({
    transport,
    gate,
    logger,
    attempts: platform.retry.attempts,
    backoff: platform.retry,
    userAgent: `paw/${PAW_VERSION}`,
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  });
  const tokens = new TokenProvider({
    credentials,
    http,
    logger,
    refreshMarginSeconds: platform.token.refreshMarginSeconds,
    defaultLifetimeSeconds: platform.token.defaultLifetimeSeconds,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.observer === undefined ? {} : { observer: options.observer }),
  });

  const vocabulary = new Vocabulary(platform.vocabulary);
  const aliases = new FieldAliases(platform.fieldAliases);
  const restClient = new RestClient({
    http,
    routes: new RouteTable(baseUrl, platform.restBasePath, platform.routes),
    authorization: tokens,
    baseUrl,
    pageSize: platform.pageSize,
  });
  const graphqlClient = new GraphqlClient({ http, authorization: tokens, baseUrl, logger });
  const clusters = new ClusterSessions({
    http,
    logger,
    refreshMarginSeconds: platform.clusterSessions.refreshMarginSeconds,
    allowInsecureHttp: platform.allowInsecureHttp,
    credentials: (kind) => clusterCredentials(kind, credentials, platform),
    reloadCredentials: async () => {
      const reloaded = await credentials.reload();
      return reloaded === undefined
        ? undefined
        : {
            kind: 'service-account',
            clientId: reloaded.clientId,
            clientSecret: reloaded.clientSecret,
          };
    },
    ...(options.now === undefined ? {} : { now: options.now }),
  });

  const accessTokens = new AccessTokens({
    http,
    baseUrl,
    defaultLifetimeSeconds: platform.token.defaultLifetimeSeconds,
    now: options.now ?? Date.now,
  });

  const restEvents = new EventsApi(restClient, aliases);
  const rest: RestApis = {
    kind: 'rest',
    vocabulary,
    workloads: new RestWorkloads(restClient, vocabulary, aliases, restEvents, logger),
    slaDomains: new SlaDomainsApi(restClient, aliases),
    clusters: new ClustersApi(restClient, aliases),
    events: restEvents,
    client: restClient,
    reference: (signal) =>
      findRestReference({
        http,
        baseUrl,
        restBasePath: platform.restBasePath,
        authorization: tokens,
        signal,
      }),
  };
  const graphql: GraphqlApis = {
    kind: 'graphql',
    vocabulary,
    workloads: new GraphqlWorkloads(graphqlClient, vocabulary, platform.pageSize),
    slaDomains: new GraphqlSlaDomains(graphqlClient, platform.pageSize),
    clusters: new GraphqlClusters(graphqlClient, platform.pageSize),
    events: new GraphqlEvents(graphqlClient, platform.pageSize),
    serviceAccounts: new ServiceAccountsApi(graphqlClient, baseUrl, platform.pageSize),
    client: graphqlClient,
    serviceAccountsWith: (token) =>
      new ServiceAccountsApi(
        new GraphqlClient({
          http,
          baseUrl,
          logger,
          authorization: { token: async () => token, rejected: () => undefined },
        }),
        baseUrl,
        platform.pageSize,
      ),
  };

  let closing: Promise<void> | undefined;
  return {
    baseUrl,
    credentials,
    tokens,
    accessTokens,
    clusters,
    api: platform.api === 'graphql' ? graphql : rest,
    rest,
    graphql,
    requestsWaiting: () => gate.waiting,
    oauth: {
      login: (login) =>
        loginWithPkce({
          http,
          baseUrl,
          application: oauthApplication(platform, login.application),
          onAuthorizeUrl: login.onAuthorizeUrl,
          ...(login.timeoutMs === undefined ? {} : { timeoutMs: login.timeoutMs }),
          ...(login.signal === undefined ? {} : { signal: login.signal }),
        }),
    },
    close: () => {
      closing ??= (async () => {
        await clusters.close();
        await tokens.close();
        await transport.close().catch(() => undefined);
      })();
      return closing;
    },
  };
}

function clusterCredentials(
  kind: ClusterCredentialKind,
  credentials: CredentialsSource,
  platform: Settings['platform'],
): ClusterCredentials {
  if (kind === 'service-account') {
    const current = credentials.current();
    return { kind, clientId: current.clientId, clientSecret: current.clientSecret };
  }
  const { clientId, clientSecret } = platform.personalAccessToken;
  if (clientId === undefined || clientSecret === undefined) {
    throw new UsageError(
      'no personal access token: set PAW_PAT_CLIENT_ID (pat|<uuid>) and PAW_PAT_SECRET ' +
        '(or platform.personalAccessToken.clientId in the settings file)',
    );
  }
  return { kind, clientId, clientSecret };
}

function oauthApplication(
  platform: Settings['platform'],
  given: Partial<OAuthApplication> | undefined,
): OAuthApplication {
  const clientId = given?.clientId ?? platform.oauth.clientId;
  const clientSecret = given?.clientSecret ?? platform.oauth.clientSecret;
  const redirectUri = given?.redirectUri ?? platform.oauth.redirectUri;
  const scope = given?.scope ?? platform.oauth.scope;
  const missing = [
    clientId === undefined ? 'PAW_OAUTH_CLIENT_ID' : undefined,
    clientSecret === undefined ? 'PAW_OAUTH_CLIENT_SECRET' : undefined,
    redirectUri === undefined ? 'PAW_OAUTH_REDIRECT_URI' : undefined,
    scope === undefined ? 'PAW_OAUTH_SCOPE' : undefined,
  ].filter((name) => name !== undefined);
  if (
    clientId === undefined ||
    clientSecret === undefined ||
    redirectUri === undefined ||
    scope === undefined
  ) {
    throw new UsageError(
      `paw login needs the OAuth application registered in the platform: set ${missing.join(', ')} ` +
        '(or platform.oauth.* in the settings file; the secret only in the environment)',
    );
  }
  return { clientId, clientSecret, redirectUri, scope };
}

/**
 * A credentials file others can read gives them the account: a warning at start, not a
 * refusal, since secrets that orchestrators mount are often 0644 by default (the container
 * image and the manifests paw ships mount them 0400).
 */
async function warnIfReadableByOthers(file: string, logger: Logger): Promise<void> {
  const mode = await stat(file).then(
    (info) => info.mode & 0o777,
    () => undefined,
  );
  if (mode === undefined || (mode & 0o077) === 0) return;
  logger.warn(
    { file, mode: mode.toString(8) },
    `the credentials file can be read by other users: chmod 600 ${file}`,
  );
}
