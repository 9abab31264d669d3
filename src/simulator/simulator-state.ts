import { AccessTokenStore } from './access-tokens.js';
import { ExpiringTokens } from './expiring-tokens.js';
import { AccountDirectory } from './accounts.js';
import { SimulatorClock } from './clock.js';
import { ClusterSessionStore } from './cluster-sessions.js';
import { EventLog } from './event-log.js';
import { FaultInjector } from './fault-injector.js';
import type { Inventory } from './inventory.js';
import { IssuedSecrets } from './issued-secrets.js';
import type { JobStatusLinkShape } from './job-status-link.js';
import { AuthorizationCodes } from './oauth-grants.js';
import type { SimulatorOptions } from './options.js';
import { TokenBucket } from './rate-limiter.js';
import type { SimSlaDomain } from './records.js';
import { SeededRandom } from './seeded-random.js';
import { SimVocabulary } from './sim-vocabulary.js';
import { seedInventory, type SeededIdentities } from './seed-inventory.js';
import { TokenMinter } from './signed-token.js';
import { SlaDomainStore } from './sla-domains.js';
import { SnapshotJobEngine } from './snapshot-jobs.js';
import { SimulatorStats } from './stats.js';

/** An SLA Domain's settings as they were when the inventory was seeded. */
export type InitialSlaDomain = Pick<SimSlaDomain, 'id' | 'frequency' | 'retention'>;

/**
 * Everything one simulator instance holds: its stores, its clock, its counters. Servers read
 * and change it; nothing in it is shared between instances, so several run in one process.
 */
export class SimulatorState {
  readonly clock: SimulatorClock;
  readonly secrets = new IssuedSecrets();
  readonly accounts: AccountDirectory;
  readonly events: EventLog;
  readonly slaDomains: SlaDomainStore;
  readonly inventory: Inventory;
  readonly identities: SeededIdentities;
  /** When the inventory was seeded: scheduled snapshot history ends here. */
  readonly inventoryEpoch: number;
  readonly initialSlaDomains: ReadonlyMap<string, InitialSlaDomain>;
  readonly jobs: SnapshotJobEngine;
  readonly tokens: AccessTokenStore;
  readonly clusterSessions: ClusterSessionStore;
  readonly authorizationCodes: AuthorizationCodes;
  readonly stats = new SimulatorStats();
  readonly faults: FaultInjector;
  readonly rateLimiter: TokenBucket;
  jobStatusLink: JobStatusLinkShape;
  /** The words the REST interface and the job statuses speak (switchable through `/_sim`). */
  words: SimVocabulary;
  /** REST events leave out the job id, as the real platform's activity does. */
  eventsWithoutJobIds: boolean;
  /**
   * What account creation and rotation answer as `accessTokenUri` instead of the platform's own
   * (a test of a platform answer that would redirect the secret); null for the real one.
   */
  answeredAccessTokenUri: string | null = null;
  /**
   * The quorum-authorization (two-person rule) policy ids a secret rotation reports as
   * suspended by it (`suspendedTprPolicyIds`); none unless a test sets some through `/_sim`.
   */
  suspendedTprPolicyIds: readonly string[] = [];
  /** `{base_url}`; known once the platform server listens. */
  baseUrl = 'http://127.0.0.1';
  /** Each cluster's `{cluster_base_url}`, by cluster id. */
  readonly clusterBaseUrls = new Map<string, string>();

  constructor(readonly options: SimulatorOptions) {
    const random = new SeededRandom(options.seed);
    this.clock = new SimulatorClock(options.timeScale);
    this.accounts = new AccountDirectory(this.secrets);
    this.events = new EventLog(this.clock);
    // The store needs the inventory, which seeding builds together with the store's contents.
    this.slaDomains = new SlaDomainStore(() => this.inventory, this.events, this.clock);
    const seeded = seedInventory(options, random.fork('inventory'), this.accounts, this.slaDomains);
    this.inventory = seeded.inventory;
    this.identities = seeded.identities;
    this.inventoryEpoch = this.clock.now();
    this.initialSlaDomains = new Map(
      this.slaDomains
        .list()
        .map((domain) => [
          domain.id,
          { id: domain.id, frequency: { ...domain.frequency }, retention: { ...domain.retention } },
        ]),
    );
    this.jobs = new SnapshotJobEngine(this.clock, options.jobs, random.fork('jobs'), this.events);
    const minter = new TokenMinter(() => this.baseUrl);
    const expiring = (lifetimeSeconds: number): ExpiringTokens =>
      new ExpiringTokens(this.clock, minter, this.secrets, lifetimeSeconds);
    this.tokens = new AccessTokenStore(this.clock, expiring(options.tokenLifetimeSeconds));
    this.clusterSessions = new ClusterSessionStore(
      this.clock,
      expiring(options.clusterSessionLifetimeSeconds),
      options.clusterSessionCap,
    );
    this.authorizationCodes = new AuthorizationCodes(this.clock, this.secrets);
    this.faults = new FaultInjector(random.fork('faults'), options.faults);
    this.rateLimiter = new TokenBucket(
      options.rateLimit.requestsPerSecond,
      options.rateLimit.burst,
    );
    this.jobStatusLink = options.jobStatusLink;
    this.words = new SimVocabulary(options.vocabulary, options.typeSpellings);
    this.eventsWithoutJobIds = options.eventsWithoutJobIds;
  }

  /** `{base_url}/api/client_token`: what credentials files and GraphQL replies name. */
  get accessTokenUri(): string {
    return `${this.baseUrl}/api/client_token`;
  }
}
