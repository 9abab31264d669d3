import { Secret } from './secret.js';

/** How an environment variable's text becomes a setting's value. */
type Parser = 'string' | 'list' | 'integer' | 'number' | 'boolean' | 'secret';

interface EnvironmentOverride {
  readonly variable: string;
  readonly path: readonly string[];
  readonly parser: Parser;
  readonly description: string;
}

/**
 * Every `PAW_*` variable that overrides a setting. This table is the reference: docs and
 * `--help` texts are written from it.
 */
export const ENVIRONMENT_OVERRIDES: readonly EnvironmentOverride[] = [
  { variable: 'PAW_LOG_LEVEL', path: ['log', 'level'], parser: 'string', description: 'log level' },
  { variable: 'PAW_REDIS_URL', path: ['redis', 'url'], parser: 'string', description: 'Redis URL' },
  {
    variable: 'PAW_REDIS_PREFIX',
    path: ['redis', 'prefix'],
    parser: 'string',
    description: 'prefix of every Redis key',
  },
  {
    variable: 'PAW_REDIS_USERNAME',
    path: ['redis', 'username'],
    parser: 'string',
    description: 'Redis ACL user',
  },
  {
    variable: 'PAW_REDIS_PASSWORD',
    path: ['redis', 'password'],
    parser: 'secret',
    description: 'Redis password',
  },
  {
    variable: 'PAW_REDIS_PASSWORD_FILE',
    path: ['redis', 'passwordFile'],
    parser: 'string',
    description: 'file holding the Redis password',
  },
  {
    variable: 'PAW_REDIS_CA_FILE',
    path: ['redis', 'tls', 'caFile'],
    parser: 'string',
    description: "PEM file of the CA of Redis's TLS certificate",
  },
  {
    variable: 'PAW_REDIS_TLS_CERT_FILE',
    path: ['redis', 'tls', 'certFile'],
    parser: 'string',
    description: 'client certificate for Redis mutual TLS',
  },
  {
    variable: 'PAW_REDIS_TLS_KEY_FILE',
    path: ['redis', 'tls', 'keyFile'],
    parser: 'string',
    description: 'client key for Redis mutual TLS',
  },
  {
    variable: 'PAW_REDIS_SENTINELS',
    path: ['redis', 'sentinel', 'sentinels'],
    parser: 'list',
    description: 'Redis Sentinel addresses, host:port, comma-separated',
  },
  {
    variable: 'PAW_REDIS_MASTER_NAME',
    path: ['redis', 'sentinel', 'masterName'],
    parser: 'string',
    description: "the Redis master's name at the sentinels",
  },
  {
    variable: 'PAW_REDIS_SENTINEL_PASSWORD',
    path: ['redis', 'sentinel', 'password'],
    parser: 'secret',
    description: 'password of the Redis sentinels',
  },
  {
    variable: 'PAW_REDIS_SENTINEL_PASSWORD_FILE',
    path: ['redis', 'sentinel', 'passwordFile'],
    parser: 'string',
    description: 'file holding the password of the Redis sentinels',
  },
  {
    variable: 'PAW_CREDENTIALS_FILE',
    path: ['platform', 'credentialsFile'],
    parser: 'string',
    description: "the platform's service-account credentials file",
  },
  {
    variable: 'PAW_PLATFORM_URL',
    path: ['platform', 'url'],
    parser: 'string',
    description: 'platform base URL',
  },
  {
    variable: 'PAW_CLIENT_ID',
    path: ['platform', 'clientId'],
    parser: 'string',
    description: 'service-account client id',
  },
  {
    variable: 'PAW_CLIENT_SECRET',
    path: ['platform', 'clientSecret'],
    parser: 'secret',
    description: 'service-account client secret',
  },
  {
    variable: 'PAW_PLATFORM_RPS',
    path: ['platform', 'requestsPerSecond'],
    parser: 'number',
    description: 'platform requests per second',
  },
  {
    variable: 'PAW_PLATFORM_ALLOW_INSECURE_HTTP',
    path: ['platform', 'allowInsecureHttp'],
    parser: 'boolean',
    description: 'allow plain http:// to non-loopback platform addresses',
  },
  {
    variable: 'PAW_PLATFORM_CONNECT_TIMEOUT_MS',
    path: ['platform', 'timeouts', 'connectMs'],
    parser: 'integer',
    description: 'connect timeout (ms)',
  },
  {
    variable: 'PAW_PLATFORM_HEADERS_TIMEOUT_MS',
    path: ['platform', 'timeouts', 'headersMs'],
    parser: 'integer',
    description: 'time to wait for response headers (ms)',
  },
  {
    variable: 'PAW_PLATFORM_BODY_TIMEOUT_MS',
    path: ['platform', 'timeouts', 'bodyMs'],
    parser: 'integer',
    description: 'longest silence while reading a response body (ms)',
  },
  {
    variable: 'PAW_PLATFORM_KEEP_ALIVE_MS',
    path: ['platform', 'timeouts', 'keepAliveMs'],
    parser: 'integer',
    description: 'how long idle connections are kept (ms)',
  },
  {
    variable: 'PAW_PLATFORM_RETRY_ATTEMPTS',
    path: ['platform', 'retry', 'attempts'],
    parser: 'integer',
    description: 'attempts per request, the first included',
  },
  {
    variable: 'PAW_PLATFORM_RETRY_BASE_DELAY_MS',
    path: ['platform', 'retry', 'baseDelayMs'],
    parser: 'integer',
    description: 'first retry backoff (ms)',
  },
  {
    variable: 'PAW_PLATFORM_RETRY_MAX_DELAY_MS',
    path: ['platform', 'retry', 'maxDelayMs'],
    parser: 'integer',
    description: 'longest retry backoff (ms)',
  },
  {
    variable: 'PAW_TOKEN_REFRESH_MARGIN_SECONDS',
    path: ['platform', 'token', 'refreshMarginSeconds'],
    parser: 'integer',
    description: 'refresh access tokens this long before expiry',
  },
  {
    variable: 'PAW_TOKEN_DEFAULT_LIFETIME_SECONDS',
    path: ['platform', 'token', 'defaultLifetimeSeconds'],
    parser: 'integer',
    description: 'token lifetime assumed when expires_in is missing',
  },
  {
    variable: 'PAW_CLUSTER_SESSION_REFRESH_MARGIN_SECONDS',
    path: ['platform', 'clusterSessions', 'refreshMarginSeconds'],
    parser: 'integer',
    description: 'replace cluster sessions this long before expiry',
  },
  {
    variable: 'PAW_PLATFORM_PAGE_SIZE',
    path: ['platform', 'pageSize'],
    parser: 'integer',
    description: 'items per page when walking collections',
  },
  {
    variable: 'PAW_PLATFORM_REST_BASE_PATH',
    path: ['platform', 'restBasePath'],
    parser: 'string',
    description: 'path of the task-based REST interface under the base URL',
  },
  {
    variable: 'PAW_PLATFORM_API',
    path: ['platform', 'api'],
    parser: 'string',
    description: 'interface paw uses: rest or graphql',
  },
  {
    variable: 'PAW_PLATFORM_ACTIVITY_DELAY_MS',
    path: ['platform', 'activityDelayMs'],
    parser: 'integer',
    description: "how long the platform may take to show a trigger's activity",
  },
  {
    variable: 'PAW_OAUTH_CLIENT_ID',
    path: ['platform', 'oauth', 'clientId'],
    parser: 'string',
    description: 'OAuth application client id (paw login)',
  },
  {
    variable: 'PAW_OAUTH_CLIENT_SECRET',
    path: ['platform', 'oauth', 'clientSecret'],
    parser: 'secret',
    description: 'OAuth application client secret (paw login)',
  },
  {
    variable: 'PAW_OAUTH_REDIRECT_URI',
    path: ['platform', 'oauth', 'redirectUri'],
    parser: 'string',
    description: 'registered loopback redirect URI (paw login)',
  },
  {
    variable: 'PAW_OAUTH_SCOPE',
    path: ['platform', 'oauth', 'scope'],
    parser: 'string',
    description: 'OAuth scope (paw login)',
  },
  {
    variable: 'PAW_PAT_CLIENT_ID',
    path: ['platform', 'personalAccessToken', 'clientId'],
    parser: 'string',
    description: 'personal access token id (pat|<uuid>)',
  },
  {
    variable: 'PAW_PAT_SECRET',
    path: ['platform', 'personalAccessToken', 'clientSecret'],
    parser: 'secret',
    description: 'personal access token secret',
  },
  {
    variable: 'PAW_HTTP_PORT',
    path: ['http', 'port'],
    parser: 'integer',
    description: 'health/metrics/dashboard port (0 = off)',
  },
  {
    variable: 'PAW_JOBS_DIR',
    path: ['jobs', 'dir'],
    parser: 'string',
    description: 'job definitions folder',
  },
  {
    variable: 'PAW_JOBS_WATCH',
    path: ['jobs', 'watch'],
    parser: 'boolean',
    description: 'reload the job definitions when the folder changes',
  },
  {
    variable: 'PAW_OUTCOME_RETENTION_DAYS',
    path: ['outcomes', 'retentionDays'],
    parser: 'integer',
    description: 'days to keep outcome records',
  },
  {
    variable: 'PAW_ROTATION_MIN_RECOVERY_TOKEN_SECONDS',
    path: ['rotation', 'minRecoveryTokenSeconds'],
    parser: 'integer',
    description: "shortest recovery-token lifetime a rotation of paw's own secret accepts (s)",
  },
  // --- scheduler and queues (issue 4) ---
  {
    variable: 'PAW_OUTCOME_TRIM_INTERVAL_MINUTES',
    path: ['outcomes', 'trimIntervalMinutes'],
    parser: 'integer',
    description: 'minutes between trims of outcome records past their retention',
  },
  {
    variable: 'PAW_OUTCOME_PACK_AFTER_SECONDS',
    path: ['outcomes', 'packAfterSeconds'],
    parser: 'integer',
    description: 'seconds after a run ends before a scheduler packs its items',
  },
  {
    variable: 'PAW_SCHEDULER_LEASE_MS',
    path: ['scheduler', 'leaseMs'],
    parser: 'integer',
    description: "how long a scheduler replica's claim on due fires lasts (ms)",
  },
  {
    variable: 'PAW_SCHEDULER_MISFIRE_GRACE_MS',
    path: ['scheduler', 'misfireGraceMs'],
    parser: 'integer',
    description: 'how late a fire may be handled and still count as on time (ms)',
  },
  {
    variable: 'PAW_QUEUE_ATTEMPTS',
    path: ['queues', 'attempts'],
    parser: 'integer',
    description: 'attempts per job, the first included',
  },
  // --- ops server and notifications (issue 5) ---
  {
    variable: 'PAW_HTTP_HOST',
    path: ['http', 'host'],
    parser: 'string',
    description: 'address the health/metrics/dashboard server listens on',
  },
  {
    variable: 'PAW_OPS_TOKEN_FILE',
    path: ['http', 'auth', 'tokenFile'],
    parser: 'string',
    description: 'bearer tokens for the dashboard, /api and /queues',
  },
  {
    variable: 'PAW_OPS_USERS_FILE',
    path: ['http', 'auth', 'usersFile'],
    parser: 'string',
    description: 'basic-auth users for the dashboard, /api and /queues',
  },
  {
    variable: 'PAW_OPS_PROXY_USER_HEADER',
    path: ['http', 'auth', 'proxyUserHeader'],
    parser: 'string',
    description: 'the user header a trusted reverse proxy sets',
  },
  {
    variable: 'PAW_OPS_TRUSTED_PROXIES',
    path: ['http', 'auth', 'trustedProxies'],
    parser: 'list',
    description: 'proxies whose user header is believed (IPs or CIDRs, comma-separated)',
  },
  {
    variable: 'PAW_OPS_PROXY_SECRET_FILE',
    path: ['http', 'auth', 'proxySecretFile'],
    parser: 'string',
    description: "the trusted proxy's shared secrets (it sends one in X-Paw-Proxy-Secret)",
  },
  {
    variable: 'PAW_METRICS_TOKEN_FILE',
    path: ['http', 'metricsTokenFile'],
    parser: 'string',
    description: 'bearer token file for /metrics',
  },
  {
    variable: 'PAW_HTTP_ALLOWED_HOSTS',
    path: ['http', 'allowedHosts'],
    parser: 'list',
    description: 'host names the dashboard answers to (comma-separated)',
  },
  {
    variable: 'PAW_HTTP_ALLOW_UNAUTHENTICATED',
    path: ['http', 'allowUnauthenticated'],
    parser: 'boolean',
    description: 'serve a non-loopback address without authentication',
  },
  {
    variable: 'PAW_HTTP_REQUEST_TIMEOUT_MS',
    path: ['http', 'requestTimeoutMs'],
    parser: 'integer',
    description: 'time for a request to the ops server to arrive, headers and body',
  },
  {
    variable: 'PAW_HTTP_MAX_CONNECTIONS',
    path: ['http', 'maxConnections'],
    parser: 'integer',
    description: 'connections the ops server holds at once',
  },
  {
    variable: 'PAW_HTTP_MAX_CONNECTIONS_PER_ADDRESS',
    path: ['http', 'maxConnectionsPerAddress'],
    parser: 'integer',
    description: 'connections one remote address may hold on the ops server at once',
  },
  {
    variable: 'PAW_HTTP_QUEUES_READ_ONLY',
    path: ['http', 'queuesReadOnly'],
    parser: 'boolean',
    description: 'whether /queues (bull-board) is read-only',
  },
  {
    variable: 'PAW_NOTIFY_ATTEMPTS',
    path: ['notifications', 'attempts'],
    parser: 'integer',
    description: 'attempts per webhook delivery, the first included',
  },
  {
    variable: 'PAW_NOTIFY_TIMEOUT_MS',
    path: ['notifications', 'timeoutMs'],
    parser: 'integer',
    description: 'time for a webhook to answer (ms)',
  },
  {
    variable: 'PAW_NOTIFY_ALLOW_INSECURE_HTTP',
    path: ['notifications', 'allowInsecureHttp'],
    parser: 'boolean',
    description: 'allow plain http:// webhooks beyond loopback addresses',
  },
  {
    variable: 'PAW_COVERAGE_REFRESH_INTERVAL_MS',
    path: ['coverage', 'refreshIntervalMs'],
    parser: 'integer',
    description: 'how often paw_coverage_workloads is computed again (ms)',
  },
  // --- worker processes ---
  {
    variable: 'PAW_WORKER_SHUTDOWN_GRACE_MS',
    path: ['worker', 'shutdownGraceMs'],
    parser: 'integer',
    description: 'how long active jobs may finish at shutdown before they are aborted (ms)',
  },
  {
    variable: 'PAW_WORKER_LOCK_DURATION_MS',
    path: ['worker', 'lockDurationMs'],
    parser: 'integer',
    description: "how long a worker's hold on a job lasts without renewal (ms)",
  },
  {
    variable: 'PAW_WORKER_STALLED_INTERVAL_MS',
    path: ['worker', 'stalledIntervalMs'],
    parser: 'integer',
    description: 'how often workers look for jobs of dead workers (ms)',
  },
  {
    variable: 'PAW_SNAPSHOT_LANE_SIZE',
    path: ['worker', 'snapshotLaneSize'],
    parser: 'integer',
    description: 'about how many workloads one lane of a snapshot run holds',
  },
  {
    variable: 'PAW_SNAPSHOT_LANE_RPS',
    path: ['worker', 'snapshotLaneRequestsPerSecond'],
    parser: 'number',
    description: "how much of the platform's request rate one lane of a snapshot run carries",
  },
  {
    variable: 'PAW_SNAPSHOT_POLL_MIN_MS',
    path: ['worker', 'snapshotPoll', 'minMs'],
    parser: 'integer',
    description: "shortest pause between reads of a snapshot job's status in a worker (ms)",
  },
  {
    variable: 'PAW_SNAPSHOT_POLL_MAX_MS',
    path: ['worker', 'snapshotPoll', 'maxMs'],
    parser: 'integer',
    description: "longest pause between reads of a snapshot job's status in a worker (ms)",
  },
  // --- crash points (tests and the chaos suite) ---
  {
    variable: 'PAW_CRASH_AT',
    path: ['debug', 'crashAt'],
    parser: 'list',
    description: 'comma-separated crash points where the process SIGKILLs itself (testing only)',
  },
];

/**
 * Converts a variable's text. Malformed text is returned unchanged so that the schema reports
 * it with the variable's name, instead of failing here with a vaguer message.
 */
export function parseEnvironmentValue(text: string, parser: Parser): unknown {
  switch (parser) {
    case 'string':
      return text;
    case 'list':
      return text
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    case 'secret':
      return new Secret(text);
    case 'integer':
      return /^-?\d+$/.test(text.trim()) ? Number(text) : text;
    case 'number':
      return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
    case 'boolean':
      // Never `z.coerce.boolean()`: it turns the string "false" into true.
      if (/^(true|1|yes)$/i.test(text)) return true;
      if (/^(false|0|no)$/i.test(text)) return false;
      return text;
  }
}
