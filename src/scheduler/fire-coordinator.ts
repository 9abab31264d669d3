import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { luaScript } from '../redis/lua-file.js';

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

/** Claims a definition's due fires for this replica (see the files for what each answers). */
const claimScript = luaScript('scheduler/lua/claimFires-2.lua');
/** Moves the cursor past the fires handled so far and extends the lease while held. */
const renewScript = luaScript('scheduler/lua/renewFires-2.lua');
/** Moves the cursor forward and releases the lease. */
const completeScript = luaScript('scheduler/lua/completeFires-2.lua');

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
