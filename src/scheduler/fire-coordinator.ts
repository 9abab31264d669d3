import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { RedisScript } from '../redis/redis-script.js';

/** The answer to a claim on a definition's due fires. */
export type ClaimResult =
  /**
   * This replica handles the fires after `cursor` (none handled yet when undefined), holding
   * `lease` until it completes.
   */
  | { readonly status: 'claimed'; readonly cursor: Date | undefined; readonly lease: FireLease }
  /** Another replica handled every fire up to the one asked for. */
  | { readonly status: 'handled'; readonly cursor: Date }
  /** Another replica is handling them now; ask again at the next tick. */
  | { readonly status: 'held'; readonly holder: string };

/**
 * KEYS: cursors hash, lease. ARGV: definitionId, upToMs, owner, leaseMs.
 */
const claimScript = new RedisScript(
  'paw-claim-fires',
  `
local cursor = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if cursor and cursor >= tonumber(ARGV[2]) then return {'handled', tostring(cursor)} end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[3] then return {'held', holder} end
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
if cursor then return {'claimed', tostring(cursor)} end
return {'claimed', ''}
`,
);

/**
 * Lua shared by the scripts below: moves definition ARGV[1]'s cursor in the hash KEYS[1] forward
 * to ARGV[2] (nothing when it is ''), never back.
 */
const ADVANCE_CURSOR = `
if ARGV[2] ~= '' then
  local cursor = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
  if not cursor or cursor < tonumber(ARGV[2]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
end
`;

/**
 * KEYS: cursors hash, lease. ARGV: definitionId, handledUpToMs ('' for none), owner, leaseMs.
 * Moves the cursor past the fires handled so far (never back) and extends the lease if this
 * replica still holds it. Returns 1 while it holds the lease, 0 once it has lost it.
 */
const renewScript = new RedisScript(
  'paw-renew-fires',
  `${ADVANCE_CURSOR}
if redis.call('GET', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1
`,
);

/**
 * KEYS: cursors hash, lease. ARGV: definitionId, handledUpToMs ('' for none), owner.
 * Moves the cursor forward (never back) and releases the lease if this replica holds it.
 */
const completeScript = new RedisScript(
  'paw-complete-fires',
  `${ADVANCE_CURSOR}
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1
`,
);

/**
 * The Redis-backed run coordinator: elects one scheduler replica per fire and remembers, per
 * definition, the last fire handled (the cursor, which is what catch-up starts from).
 *
 * A replica with due fires claims them: it gets a lease on the definition (a key with a TTL)
 * unless the cursor already covers them or another live replica holds the lease. It then
 * handles them in order and completes, which moves the cursor and releases the lease. The lease
 * is short (`scheduler.leaseMs`, 2.5 s) and renewed every third of that while the replica works,
 * each renewal also moving the cursor past the fires handled so far: a replica that dies holding
 * a lease loses it within `leaseMs`, and the replica that takes over handles only the fires
 * after the last renewal. The lease cannot make two replicas act at once for certain (a replica
 * paused past its lease can wake up; it stops when its next renewal finds the lease gone), which
 * is why a fire's run id and job id are deterministic: a second handler adds nothing.
 *
 * node-cron's own `distributed` mode elects per (task, slot) and fails closed: a replica that
 * dies after being elected loses that fire for good, which a nightly snapshot cannot afford.
 */
export class FireCoordinator {
  /** Identifies this replica in leases (and in logs). */
  readonly owner: string;
  private readonly cursorsKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs: number,
  ) {
    this.owner = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
    this.cursorsKey = `${prefix}:scheduler:cursors`;
  }

  /** The last fire handled for each definition that has one. */
  async cursors(): Promise<Map<string, Date>> {
    const hash = await this.redis.hgetall(this.cursorsKey);
    return new Map(Object.entries(hash).map(([id, ms]) => [id, new Date(Number(ms))]));
  }

  /**
   * Sets a definition's cursor to `at` unless it has one: a definition seen for the first time
   * starts from now, without catching up fires from before it existed. Returns the cursor.
   */
  async initCursor(definitionId: string, at: Date): Promise<Date> {
    await this.redis.hsetnx(this.cursorsKey, definitionId, at.getTime());
    const ms = await this.redis.hget(this.cursorsKey, definitionId);
    return new Date(Number(ms ?? at.getTime()));
  }

  /** Sets a definition's cursor to `at`, forward only (a disabled definition misses nothing). */
  async advanceCursor(definitionId: string, at: Date): Promise<void> {
    await completeScript.run(
      this.redis,
      [this.cursorsKey, this.leaseKey(definitionId)],
      [definitionId, at.getTime(), this.owner],
    );
  }

  /** Claims the due fires of `definitionId` up to and including `upTo`. */
  async claim(definitionId: string, upTo: Date): Promise<ClaimResult> {
    const [status, value] = (await claimScript.run(
      this.redis,
      [this.cursorsKey, this.leaseKey(definitionId)],
      [definitionId, upTo.getTime(), this.owner, this.leaseMs],
    )) as [string, string];
    if (status === 'handled') return { status, cursor: new Date(Number(value)) };
    if (status === 'held') return { status, holder: value };
    return {
      status: 'claimed',
      cursor: value === '' ? undefined : new Date(Number(value)),
      lease: new FireLease(this.redis, [this.cursorsKey, this.leaseKey(definitionId)], {
        definitionId,
        owner: this.owner,
        leaseMs: this.leaseMs,
      }),
    };
  }

  private leaseKey(definitionId: string): string {
    return `${this.prefix}:scheduler:lease:${definitionId}`;
  }
}

/**
 * A claimed definition's lease. While {@link renewedWhile}'s work runs it is renewed every third
 * of `leaseMs`, each renewal also moving the cursor past the fires {@link handled} reports, so
 * that a replica taking over after a crash starts from there; {@link complete} releases it. A
 * claim that nobody works on (its replica died) is not renewed and runs out within `leaseMs`.
 */
class FireLease {
  private handledUpTo: Date | undefined;
  private lostLease = false;
  private renewal: NodeJS.Timeout | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly keys: readonly [cursors: string, lease: string],
    private readonly holder: {
      readonly definitionId: string;
      readonly owner: string;
      readonly leaseMs: number;
    },
  ) {}

  /**
   * Whether a renewal found the lease gone or taken by another replica (this one was paused past
   * it): that replica handles the fires now, so this one should stop.
   */
  get lost(): boolean {
    return this.lostLease;
  }

  /** Runs `work`, renewing the lease until it ends. */
  async renewedWhile<T>(work: () => Promise<T>): Promise<T> {
    this.renewal ??= setInterval(() => void this.renew(), Math.floor(this.holder.leaseMs / 3));
    // A lease alone must not keep a stopping process alive.
    this.renewal.unref();
    try {
      return await work();
    } finally {
      this.stopRenewing();
    }
  }

  /** The fires up to `fireTime` are handled: the next renewal records it. */
  handled(fireTime: Date): void {
    this.handledUpTo = fireTime;
  }

  /**
   * Stops renewing, records that the fires up to `handledUpTo` are handled (none when undefined)
   * and releases the lease.
   */
  async complete(handledUpTo: Date | undefined): Promise<void> {
    this.stopRenewing();
    const { definitionId, owner } = this.holder;
    await completeScript.run(this.redis, this.keys, [
      definitionId,
      handledUpTo === undefined ? '' : handledUpTo.getTime(),
      owner,
    ]);
  }

  private stopRenewing(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  private async renew(): Promise<void> {
    const { definitionId, owner, leaseMs } = this.holder;
    const upTo = this.handledUpTo;
    try {
      const held = await renewScript.run(this.redis, this.keys, [
        definitionId,
        upTo === undefined ? '' : upTo.getTime(),
        owner,
        leaseMs,
      ]);
      if (held !== 1) this.lostLease = true;
    } catch {
      // Redis unreachable: the next renewal tries again; if the lease runs out meanwhile,
      // another replica takes over, and the fire ids keep a second handler harmless.
    }
  }
}
