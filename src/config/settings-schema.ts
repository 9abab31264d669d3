import { z } from 'zod';
import { PLATFORM_APIS } from '../platform/defaults/platform-apis.js';
import { REST_RECORD_KINDS } from '../platform/defaults/default-field-aliases.js';
import {
  HTTP_METHODS,
  REST_OPERATION_IDS,
  routePlaceholderProblem,
  type RestOperationId,
} from '../platform/defaults/default-routes.js';
import { EVENT_TYPE_MEANINGS, JOB_PHASES } from '../platform/defaults/default-vocabulary.js';
import { Secret } from './secret.js';
import { isKnownTimeZone } from '../shared/time-zone.js';
import { parseAddressRange } from '../shared/address-range.js';

/**
 * Everything paw can be told about how to connect and run, with its default. The YAML file
 * (`config/paw.yaml`) and the `PAW_*` environment variables (see environment-overrides.ts) both
 * feed this one schema; unknown keys are errors so that a misspelt setting is never ignored.
 */
const logSettings = z.strictObject({
  level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

const hostPort = z
  .union([
    z
      .string()
      .regex(/^[^\s:]+:\d{1,5}$/, 'write a sentinel as host:port')
      .transform((text) => {
        const at = text.lastIndexOf(':');
        return { host: text.slice(0, at), port: Number(text.slice(at + 1)) };
      }),
    z.strictObject({ host: z.string().min(1), port: z.number().int().min(1).max(65535) }),
  ])
  .pipe(z.object({ host: z.string(), port: z.number().int().min(1).max(65535) }));

const redisTlsSettings = z.strictObject({
  /** PEM file of the CA that signed the Redis server's certificate (verification stays on). */
  caFile: z.string().min(1).optional(),
  /** For mutual TLS: the client's certificate and key (PEM). */
  certFile: z.string().min(1).optional(),
  keyFile: z.string().min(1).optional(),
});

const redisSettings = z.strictObject({
  url: z
    .string()
    .regex(
      /^(rediss?|redis\+sentinel):\/\//,
      'must be a redis://, rediss:// or redis+sentinel:// URL',
    )
    .default('redis://127.0.0.1:6379'),
  /**
   * Prefix of every key paw writes. Wrap it in braces (`{paw}`) on Redis Cluster so that all of
   * a queue's keys hash to one slot.
   */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9{}_-]+$/, 'use letters, digits, -, _ and braces only (no ":")')
    .default('paw'),
  /** The ACL user (the URL may name it instead). */
  username: z.string().min(1).optional(),
  /** Only from the environment (PAW_REDIS_PASSWORD): a password has no place in a file. */
  password: z.instanceof(Secret).optional(),
  /** A file holding the password (a mounted secret), read when paw connects. */
  passwordFile: z.string().min(1).optional(),
  tls: redisTlsSettings.prefault({}),
  /** Redis Sentinel: the sentinels to ask for the master, and its name. */
  sentinel: z
    .strictObject({
      sentinels: z.array(hostPort).min(1).optional(),
      masterName: z.string().min(1).optional(),
      /** Credentials of the sentinels themselves, when they require them. */
      username: z.string().min(1).optional(),
      /** Only from the environment (PAW_REDIS_SENTINEL_PASSWORD). */
      password: z.instanceof(Secret).optional(),
      passwordFile: z.string().min(1).optional(),
    })
    .prefault({}),
});

const milliseconds = (max: number) => z.number().int().positive().max(max);

const timeoutSettings = z.strictObject({
  /** Time to open a TCP (and TLS) connection. */
  connectMs: milliseconds(300_000).default(10_000),
  /** Time from sending a request to receiving the response headers; a hang ends here. */
  headersMs: milliseconds(600_000).default(30_000),
  /** Longest silence while a response body streams in. */
  bodyMs: milliseconds(600_000).default(30_000),
  /** How long an idle keep-alive connection is kept for reuse. */
  keepAliveMs: milliseconds(600_000).default(10_000),
});

const retrySettings = z
  .strictObject({
    /**
     * Attempts per request, the first included. Only short waits happen in process; a longer
     * wait is the queue's job (a delayed retry), so this stays small.
     */
    attempts: z.number().int().min(1).max(5).default(3),
    /** First backoff; each further one doubles, with jitter, up to maxDelayMs. */
    baseDelayMs: milliseconds(60_000).default(250),
    maxDelayMs: milliseconds(60_000).default(4_000),
  })
  .refine((retry) => retry.maxDelayMs >= retry.baseDelayMs, {
    message: 'maxDelayMs must be at least baseDelayMs',
    path: ['maxDelayMs'],
  });

const tokenSettings = z.strictObject({
  /**
   * Refresh a token this long before it expires (never more than a tenth of its lifetime, so a
   * short-lived token is not refreshed on every call).
   */
  refreshMarginSeconds: z.number().int().min(0).max(3600).default(120),
  /** Lifetime assumed when the token endpoint leaves out `expires_in`. */
  defaultLifetimeSeconds: z.number().int().positive().max(86_400).default(3600),
});

const clusterSessionSettings = z.strictObject({
  /** Replace a cached cluster session this long before its `expirationTime` (same cap as tokens). */
  refreshMarginSeconds: z.number().int().min(0).max(3600).default(60),
});

const routeOverride = z.strictObject({
  method: z.enum(HTTP_METHODS).optional(),
  path: z
    .string()
    .regex(/^\/[^?#\s]*$/, 'must start with "/" and hold no query or spaces')
    .optional(),
});

/**
 * Per-operation overrides of the REST route table (the interface is beta: its paths may move).
 * An override may use any placeholder paw can fill for its operation (`ROUTE_FILLS`), and must
 * use the ones without which every call would go to the same URL.
 */
const routeOverrides = z
  .partialRecord(z.enum(REST_OPERATION_IDS), routeOverride, {
    error: (issue) => {
      // zod's types leave out that a partial record reports unknown keys this way.
      const { code, keys } = issue as { code: string; keys?: string[] };
      return code === 'unrecognized_keys' && keys !== undefined
        ? `unknown operationId ${keys.map((key) => `"${key}"`).join(', ')}; ` +
            `known: ${REST_OPERATION_IDS.join(', ')}`
        : undefined;
    },
  })
  .superRefine((routes, context) => {
    for (const [operationId, override] of Object.entries(routes)) {
      if (override?.path === undefined) continue;
      const problem = routePlaceholderProblem(operationId as RestOperationId, override.path);
      if (problem !== undefined) {
        context.addIssue({ code: 'custom', path: [operationId, 'path'], message: problem });
      }
    }
  });

/** A word the platform uses; compared ignoring case, `_`, `-` and spaces. */
const platformWord = z.string().trim().min(1).max(200);
const phaseWords = z.partialRecord(z.enum(JOB_PHASES), z.array(platformWord)).default({});

/**
 * Words to add to paw's vocabularies (src/platform/defaults/default-vocabulary.ts): what the
 * platform you run against says where paw's defaults do not know it. A word listed here takes
 * the meaning given here.
 */
const vocabularySettings = z.strictObject({
  /** Per workload kind (`VSPHERE_VM`, `MSSQL_DATABASE`, ...), more words for its type. */
  workloadTypes: z
    .record(
      z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'a kind is an upper-case name such as VSPHERE_VM'),
      z.array(platformWord),
    )
    .default({}),
  /** Per phase (`in_progress`, `succeeded`, `failed`, `canceled`), more job status words. */
  jobStatuses: phaseWords,
  /** The same for activity (event) statuses. */
  eventStatuses: phaseWords,
  /** Per meaning (`backup`), more activity type words. */
  eventTypes: z.partialRecord(z.enum(EVENT_TYPE_MEANINGS), z.array(platformWord)).default({}),
});

/**
 * Where a REST record keeps one of paw's fields when not under paw's name: record kind →
 * paw's field → a dot path (or a list, first present wins), e.g. `workload: { type: objectType }`.
 */
const fieldAliasSettings = z
  .partialRecord(
    z.enum(REST_RECORD_KINDS),
    z.record(z.string().min(1), z.union([platformWord, z.array(platformWord).min(1)])),
  )
  .default({});

const oauthSettings = z.strictObject({
  /** The OAuth application registered in the platform, for `paw login`. */
  clientId: z.string().min(1).optional(),
  /** Only from the environment (PAW_OAUTH_CLIENT_SECRET). */
  clientSecret: z.instanceof(Secret).optional(),
  /** The loopback redirect URI registered with the application; `paw login` listens on it. */
  redirectUri: z.url({ protocol: /^http$/ }).optional(),
  /** The single scope the platform offers for this flow. */
  scope: z.string().min(1).optional(),
});

const personalAccessTokenSettings = z.strictObject({
  /** `pat|<uuid>`: a personal access token, for cluster sessions that need its owner's rights. */
  clientId: z
    .string()
    .regex(/^pat\|/, 'a personal access token id looks like pat|<uuid>')
    .optional(),
  /** Only from the environment (PAW_PAT_SECRET). */
  clientSecret: z.instanceof(Secret).optional(),
});

const platformSettings = z.strictObject({
  /**
   * Which interface paw's jobs and commands use: the task-based REST interface (beta; the spec
   * describes the jobs with it) or the stable GraphQL one.
   */
  api: z.enum(PLATFORM_APIS).default('rest'),
  /** The platform's own credentials file (`client_id`, `client_secret`, `name`, `access_token_uri`). */
  credentialsFile: z.string().min(1).optional(),
  /** `{base_url}`, when the credentials are given one by one instead of as a file. */
  url: z.url({ protocol: /^https?$/ }).optional(),
  clientId: z.string().min(1).optional(),
  /** Only from the environment (PAW_CLIENT_SECRET): a secret has no place in a config file. */
  clientSecret: z.instanceof(Secret).optional(),
  /** Platform requests per second, across all of this process's calls (the platform allows 50). */
  requestsPerSecond: z.number().positive().max(1000).default(40),
  /**
   * Plain http:// is refused for anything but a loopback address (the simulator); this allows it
   * everywhere. TLS certificate checks are never turned off.
   */
  allowInsecureHttp: z.boolean().default(false),
  timeouts: timeoutSettings.prefault({}),
  retry: retrySettings.prefault({}),
  token: tokenSettings.prefault({}),
  clusterSessions: clusterSessionSettings.prefault({}),
  /**
   * Items per page when paw walks a collection (the platform allows 1..1000). The most it allows:
   * a page costs a round trip, and at the platform's latency (a second or more a call) a night of
   * 10,000 workloads listed 100 a page spent minutes before its first trigger.
   */
  pageSize: z.number().int().min(1).max(1000).default(1000),
  /** Where the task-based REST interface lives under `{base_url}`. */
  restBasePath: z
    .string()
    .regex(/^\/[^?#\s]*[^/]$/, 'must start with "/" and not end with one')
    .default('/api/rest'),
  routes: routeOverrides.default({}),
  vocabulary: vocabularySettings.prefault({}),
  fieldAliases: fieldAliasSettings,
  /**
   * How long the platform may take to show a trigger's activity. A retry that finds a trigger
   * whose answer was lost looks for its activity only after this long, and triggers again only
   * when there is none.
   */
  activityDelayMs: milliseconds(600_000).default(30_000),
  oauth: oauthSettings.prefault({}),
  personalAccessToken: personalAccessTokenSettings.prefault({}),
});

/**
 * Who may use the dashboard, `/api/*` and `/queues` (docs/operations.md, "Security"). Any one
 * is enough: a bearer token, a basic-auth user, or a user header set by a trusted proxy.
 */
const opsAuthSettings = z.strictObject({
  /** A file of bearer tokens, one per line (`#` comments); re-read when it changes. */
  tokenFile: z.string().min(1).optional(),
  /** A file of basic-auth users, `name:<hash>` per line (`paw ops hash-password` makes one). */
  usersFile: z.string().min(1).optional(),
  /**
   * A header a reverse proxy (oauth2-proxy and the like) sets to the user it authenticated:
   * believed only from `trustedProxies` that also prove themselves with `proxySecretFile`.
   */
  proxyUserHeader: z
    .string()
    .regex(/^[A-Za-z0-9-]+$/, 'a header name, e.g. X-Forwarded-User')
    .optional(),
  /** The proxies whose user header is believed: IP addresses or CIDR ranges. */
  trustedProxies: z
    .array(
      z.string().refine((entry) => parseAddressRange(entry) !== undefined, {
        error: (issue) =>
          `${JSON.stringify(issue.input)} is not an IP address or a CIDR range (e.g. 10.0.0.0/8, fd00::/8; a prefix of at most 32 bits for IPv4, 128 for IPv6)`,
      }),
    )
    .default([]),
  /**
   * The proxy's shared secrets (a token file: `name:secret` per line): the proxy sends one in
   * `X-Paw-Proxy-Secret` with the user header, since any process on its address could send the
   * header alone.
   */
  proxySecretFile: z.string().min(1).optional(),
});

const httpSettings = z.strictObject({
  /** Port for health, metrics and the dashboard; 0 turns the server off. */
  port: z.number().int().min(0).max(65535).default(8090),
  /**
   * Address the ops server listens on. Loopback by default; any other address needs
   * authentication (http.auth) or http.allowUnauthenticated.
   */
  host: z
    .string()
    .regex(/^[0-9A-Za-z.:-]+$/, 'must be an IP address or a host name, e.g. 0.0.0.0')
    .default('127.0.0.1'),
  /**
   * Whether the ops server is read-only: `/queues` (bull-board) and the dashboard's retry of a
   * run's failed items. When false, authenticated users may retry, promote and pause jobs, and
   * retry a run from the dashboard; removing or cleaning paw's jobs is refused (paw's own
   * commands do that).
   */
  queuesReadOnly: z.boolean().default(true),
  auth: opsAuthSettings.prefault({}),
  /** When set, `/metrics` needs a bearer token from this file (the Prometheus way). */
  metricsTokenFile: z.string().min(1).optional(),
  /**
   * Host names the dashboard, `/api/*` and `/queues` answer to (a browser on another name is a
   * DNS rebinding attempt); loopback names are always allowed. `*.example.com` matches
   * subdomains.
   */
  allowedHosts: z
    .array(z.string().regex(/^(\*\.)?[0-9A-Za-z.:[\]-]+$/, 'a host name, e.g. paw.example.com'))
    .default([]),
  /** Serve a non-loopback address without authentication (a decision: say it here). */
  allowUnauthenticated: z.boolean().default(false),
  /**
   * A request's headers and body must arrive within this, and no connection may sit idle longer
   * mid-request: a client that trickles its request in is cut off.
   */
  requestTimeoutMs: z.number().int().min(1000).default(30_000),
  /**
   * Connections the ops server holds at once. When it holds them all, a connection from an
   * address holding fewer takes the place of an idle one of the address holding the most
   * (src/ops/connection-budget.ts); otherwise it is held on probation, for one prompt request.
   */
  maxConnections: z.number().int().min(1).default(128),
  /**
   * Connections one remote address may hold at once; beyond, its new ones are held on probation
   * (one prompt request each), so one client cannot crowd out the kubelet's probes or anyone else.
   */
  maxConnectionsPerAddress: z.number().int().min(1).default(32),
});

const jobsSettings = z.strictObject({
  /** Folder of job definitions (`*.yaml`). */
  dir: z.string().min(1).default('jobs'),
  /**
   * Reload the definitions when a file in the folder changes (schedulers and `paw start`);
   * SIGHUP reloads either way. Off for a filesystem that sends no change events.
   */
  watch: z.boolean().default(true),
});

const outcomesSettings = z.strictObject({
  retentionDays: z.number().int().positive().max(3650).default(90),
  /** How often a scheduler trims outcome records older than `retentionDays`. */
  trimIntervalMinutes: z.number().int().positive().max(10_080).default(60),
  /**
   * How long after a run ends a scheduler packs its items (compressed chunks: about 90 bytes an
   * item instead of 800; src/outcomes/run-packer.ts). A write to a packed run unpacks it first;
   * a run's last item ends it, so nothing of a night is written after it ends but a repeated
   * step's record: a short wait keeps Redis's memory near the packed figure at every moment.
   */
  packAfterSeconds: z.number().int().min(0).max(86_400).default(2),
});

// --- secret rotation (docs/secret-rotation.md) ---

const rotationSettings = z.strictObject({
  /**
   * Before rotating paw's own secret, paw takes a recovery token that outlives the old secret: a
   * crash after the rotation but before the new secret is stored is repaired with it. A rotation
   * does not start unless that token lasts at least this long (the time a crashed rotation has
   * to be taken over by a worker).
   */
  minRecoveryTokenSeconds: z.number().int().min(5).max(86_400).default(1800),
});

// --- scheduler and queues (issue 4) ---

const schedulerSettings = z.strictObject({
  /**
   * How long a replica's claim on a definition's due fires lasts without renewal (it is renewed
   * every third of this while the replica works). Another replica takes over the fires of one
   * that died within this long, so it bounds how late a fire can be after a crash; a replica
   * paused for longer loses the claim, which the deterministic fire ids make harmless. Half a
   * second off the whole seconds the scheduler ticks on: a lease claimed just after a tick then
   * runs out just before one, not just after it (which would cost another second).
   */
  leaseMs: z.number().int().min(1000).max(600_000).default(2_500),
  /**
   * A fire handled at most this late is on time (trigger `cron`). Later than this it needs the
   * definition's `catchUp` window, or it is recorded as missed.
   */
  misfireGraceMs: z.number().int().min(0).max(3_600_000).default(60_000),
  /** At start-up, at most this many missed fires per definition are recorded one by one. */
  maxMissedRecorded: z.number().int().min(0).max(10_000).default(100),
});

/**
 * The names of paw's own keys under `redis.prefix`, which a queue (whose keys are
 * `<prefix>:<name>:…`) must not take: the outcome store, the scheduler's cursors and leases,
 * schedule pauses (`<prefix>:schedules:paused` is also the paused list BullMQ would keep for a
 * queue named `schedules`), the notification queue and its markers, operator actions, and the
 * shared request gate.
 */
const RESERVED_KEY_NAMES = [
  'outcomes',
  'scheduler',
  'schedules',
  'notify',
  'notifications',
  'ops',
  'platform-gate',
];

/** A queue name: BullMQ uses `:` to separate key parts, so it may not contain one. */
const queueName = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'use letters, digits, - and _ only (no ":")')
  .refine((name) => !RESERVED_KEY_NAMES.includes(name), {
    error: "is reserved for paw's own keys; choose another name",
  });

function queueSettings(name: string, concurrency: number) {
  const schema = z.strictObject({
    name: queueName.default(name),
    /** Jobs one worker process runs at once. */
    concurrency: z.number().int().positive().max(1000).default(concurrency),
    /** Jobs all workers together run at once; unlimited when absent. */
    globalConcurrency: z.number().int().positive().max(10_000).optional(),
  });
  return schema.default(schema.parse({}));
}

const keepJobsSettings = (ageSeconds: number, count: number) => {
  const schema = z.strictObject({
    /** Finished jobs are deleted once older than this... */
    ageSeconds: z.number().int().positive().default(ageSeconds),
    /** ...or once more than this many are kept. The outcome store is the durable record. */
    count: z.number().int().min(0).default(count),
  });
  return schema.default(schema.parse({}));
};

const backoffSettings = z.strictObject({
  /** Delay before the first retry; each later one doubles it (with jitter), up to `maxMs`. */
  baseMs: z.number().int().min(0).default(2_000),
  maxMs: z.number().int().min(0).default(300_000),
});

const queuesSettings = z
  .strictObject({
    snapshot: queueSettings('snapshot', 20),
    slaWindow: queueSettings('sla-window', 5),
    /**
     * Rotations always run one at a time across all workers (two at once could lock an account
     * out), so only the name is a setting.
     */
    rotateSecret: z
      .strictObject({ name: queueName.default('rotate-secret') })
      .default({ name: 'rotate-secret' }),
    /** Attempts per job, the first included; transient failures are retried up to this. */
    attempts: z.number().int().positive().max(100).default(5),
    backoff: backoffSettings.default(backoffSettings.parse({})),
    /**
     * None by default: a completed job is deleted at once. The outcome store is the record, and
     * trimming kept jobs cost BullMQ four commands at every completion.
     */
    keepCompleted: keepJobsSettings(86_400, 0),
    keepFailed: keepJobsSettings(7 * 86_400, 10_000),
  })
  .refine(
    (queues) =>
      new Set([queues.snapshot.name, queues.slaWindow.name, queues.rotateSecret.name]).size === 3,
    {
      error:
        'each kind needs its own queue: give snapshot, slaWindow and rotateSecret different names',
    },
  );

// --- notifications (docs/operations.md) ---

const notificationsSettings = z
  .strictObject({
    /** Attempts per webhook delivery, the first included; retried with exponential backoff. */
    attempts: z.number().int().min(1).max(50).default(8),
    /** First backoff between deliveries; doubled per attempt (with jitter) up to `backoffMaxMs`. */
    backoffBaseMs: z.number().int().min(10).max(3_600_000).default(5_000),
    backoffMaxMs: z.number().int().min(10).max(86_400_000).default(600_000),
    /** Time for a webhook to answer. */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Failed items listed in a summary (the rest are counted). */
    maxItemsListed: z.number().int().min(0).max(500).default(20),
    /** Allow plain http:// webhooks beyond loopback addresses (a token in the URL travels in clear). */
    allowInsecureHttp: z.boolean().default(false),
  })
  .refine((notify) => notify.backoffMaxMs >= notify.backoffBaseMs, {
    message: 'backoffMaxMs must be at least backoffBaseMs',
    path: ['backoffMaxMs'],
  });

// --- protection coverage (docs/operations.md, "Protection coverage") ---

const coverageSettings = z.strictObject({
  /**
   * How often `paw_coverage_workloads` is computed again (besides after each snapshot run's end):
   * once per interval across replicas, by whichever takes its turn first.
   */
  refreshIntervalMs: z.number().int().min(10_000).max(86_400_000).default(300_000),
  digest: z
    .strictObject({
      /** A morning message per snapshot definition with `notify.webhook`: counts, failing, stale. */
      enabled: z.boolean().default(true),
      /** When it is sent each day, on the wall clock of `timezone` (HH:MM, 24 h). */
      at: z
        .string()
        .regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, 'a time of day such as 07:30')
        .default('07:00'),
      timezone: z
        .string()
        .refine(isKnownTimeZone, 'an IANA time zone such as Europe/Berlin, or UTC')
        .default('UTC'),
      /** Failing and stale workloads listed (the rest are counted). */
      maxListed: z.number().int().min(0).max(500).default(20),
    })
    .default({ enabled: true, at: '07:00', timezone: 'UTC', maxListed: 20 }),
});

// --- worker processes (docs/worker.md) ---

const snapshotPollSettings = z
  .strictObject({
    /** Shortest pause between two reads of a snapshot job's status (a job's first polls). */
    minMs: z.number().int().min(10).max(600_000).default(5_000),
    /** Longest pause: a long job is polled at most this rarely. */
    maxMs: z.number().int().min(10).max(3_600_000).default(300_000),
  })
  .refine((poll) => poll.maxMs >= poll.minMs, {
    message: 'maxMs must be at least minMs',
    path: ['maxMs'],
  });

const workerSettings = z.strictObject({
  /**
   * At shutdown, active jobs may finish for this long; then their AbortSignal fires and they are
   * left to be retried (a snapshot being polled simply stays delayed).
   */
  shutdownGraceMs: z.number().int().min(100).max(600_000).default(30_000),
  /**
   * How long a worker holds a job before another may take it (renewed every half of it while the
   * job runs). A killed worker's jobs are picked up again after at most this plus
   * `stalledIntervalMs` (docs/worker.md, "A worker killed mid-step"; `npm run bench -- takeover`).
   * Shorter locks mean a worker whose event loop or Redis stalls for half of it loses its job to
   * another: safe (every step is repeatable) but wasted work.
   */
  lockDurationMs: z.number().int().min(1_000).max(600_000).default(3_000),
  /** How often the workers (together: one check per interval) look for jobs whose worker died. */
  stalledIntervalMs: z.number().int().min(500).max(600_000).default(1_000),
  /**
   * How many times a job may be taken back from a dead worker before it fails. paw's processors
   * are safe to repeat, so this only stops a job that kills every worker that runs it.
   */
  maxStalledCount: z.number().int().min(0).max(100).default(5),
  snapshotPoll: snapshotPollSettings.default(snapshotPollSettings.parse({})),
  /**
   * A snapshot run gets at most one lane per this many workloads, rounded up (at most 16 lanes,
   * and no more than `snapshotLaneRequestsPerSecond` calls for; each lane is one job that works
   * through its items, docs/worker.md). Smaller spreads a run over more worker processes; larger
   * does more per Redis round trip.
   */
  snapshotLaneSize: z.number().int().min(1).max(1_000_000).default(2_000),
  /**
   * How much of the platform's request rate (`platform.requestsPerSecond`) one lane carries: a
   * run gets no more lanes than that rate needs, however many workloads it has. A lane's cost is
   * per wake-up as much as per request; at a low rate, one lane finds more to do each time it
   * wakes (BENCHMARKS.md, "What limits paw").
   */
  snapshotLaneRequestsPerSecond: z.number().positive().max(1_000_000).default(250),
});

// --- crash points (tests and the chaos suite) ---

/** `name` or `name@n` (the n-th time the point is reached, 1-based). */
const crashPointPattern = /^[a-z0-9-]+(\.[a-z0-9-]+)*(@[1-9][0-9]*)?$/;

const debugSettings = z.strictObject({
  /**
   * Crash points at which this process kills itself with SIGKILL, to prove that a crash there
   * loses nothing (see src/shared/crash-points.ts). Never set in production.
   */
  crashAt: z
    .array(
      z
        .string()
        .regex(crashPointPattern, 'a crash point looks like rotate.after-platform-call or x.y@3'),
    )
    .default([]),
});

export const settingsSchema = z.strictObject({
  log: logSettings.default(logSettings.parse({})),
  redis: redisSettings.default(redisSettings.parse({})),
  platform: platformSettings.prefault({}),
  http: httpSettings.default(httpSettings.parse({})),
  jobs: jobsSettings.default(jobsSettings.parse({})),
  outcomes: outcomesSettings.default(outcomesSettings.parse({})),
  rotation: rotationSettings.default(rotationSettings.parse({})),
  scheduler: schedulerSettings.default(schedulerSettings.parse({})),
  queues: queuesSettings.default(queuesSettings.parse({})),
  notifications: notificationsSettings.default(notificationsSettings.parse({})),
  coverage: coverageSettings.default(coverageSettings.parse({})),
  worker: workerSettings.default(workerSettings.parse({})),
  debug: debugSettings.default(debugSettings.parse({})),
});

/** paw's settings after validation; frozen, so nothing can change them after start-up. */
export type Settings = z.output<typeof settingsSchema>;
