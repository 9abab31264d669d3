import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { luaScript } from './lua-file.js';

/** Takes the lease for its owner (or extends it when the owner already holds it). */
const acquireScript = luaScript('redis/lua/acquireLease-1.lua');
/** Extends the lease if its owner still holds it. */
const renewScript = luaScript('redis/lua/renewLease-1.lua');
/** Deletes the lease if its owner holds it. */
const releaseScript = luaScript('redis/lua/releaseLease-1.lua');

/** The lease stayed held by someone else for the whole wait. Retryable: try again later. */
export class LeaseBusyError extends Error {
  override readonly name = 'LeaseBusyError';
  constructor(
    readonly key: string,
    readonly waitedMs: number,
  ) {
    super(`${key} is held by another task (waited ${Math.round(waitedMs / 1000)} s); will retry`);
  }
}

export interface LeaseOptions {
  /** How long the lease lasts without renewal; it is renewed every third of this while held. */
  readonly leaseMs: number;
  /** How long to wait for a lease someone else holds before giving up with LeaseBusyError. */
  readonly waitMs: number;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Runs `work` while holding a Redis lease on `key` for `owner`, so that tasks which read state
 * on the platform and then change it (pause an SLA Domain, rotate a secret) take turns. The lease
 * expires by itself when its holder dies; while `work` runs it is renewed. A task retried after
 * its process died passes the same `owner` and takes its own lease over at once instead of
 * waiting for it to expire.
 *
 * A lease is not a proof of exclusivity (a process stalled past its lease can wake up), so the
 * work it protects is still written to be safe to repeat.
 */
async function withLease<T>(
  redis: Redis,
  key: string,
  owner: string,
  options: LeaseOptions,
  work: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  let pauseMs = 50;
  while (!(await acquire(redis, key, owner, options.leaseMs))) {
    const waited = Date.now() - started;
    if (waited >= options.waitMs) throw new LeaseBusyError(key, waited);
    await sleep(Math.min(pauseMs, options.waitMs - waited), undefined, {
      signal: options.signal,
    });
    pauseMs = Math.min(pauseMs * 2, 1_000);
  }
  return holding(redis, key, owner, options.leaseMs, work);
}

async function acquire(redis: Redis, key: string, owner: string, leaseMs: number) {
  return (await acquireScript.run(redis, [key], [owner, leaseMs])) === 1;
}

/** Runs `work` with the lease held (renewed every third of its length), then releases it. */
async function holding<T>(
  redis: Redis,
  key: string,
  owner: string,
  leaseMs: number,
  work: () => Promise<T>,
): Promise<T> {
  const renewal = setInterval(
    () => {
      renewScript.run(redis, [key], [owner, leaseMs]).catch(() => undefined);
    },
    Math.max(100, Math.floor(leaseMs / 3)),
  );
  renewal.unref();
  try {
    return await work();
  } finally {
    clearInterval(renewal);
    await releaseScript.run(redis, [key], [owner]).catch(() => undefined);
  }
}

/**
 * The leases of one kind of thing paw changes on the platform (an SLA Domain, a service account),
 * one per id: {@link withLease} with the connection, each id's key and the timings bound, so that
 * whoever takes turns on them holds no Redis connection of its own.
 */
export class Leases {
  constructor(
    private readonly redis: Redis,
    private readonly keyOf: (id: string) => string,
    private readonly timing: Omit<LeaseOptions, 'signal'>,
  ) {}

  /** Runs `work` holding the lease of `id` for `owner` (see withLease above). */
  hold<T>(
    id: string,
    owner: string,
    signal: AbortSignal | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    return withLease(this.redis, this.keyOf(id), owner, { ...this.timing, signal }, work);
  }
}
