import type { Redis } from 'ioredis';

/** Calls per Redis command so far (`INFO commandstats`), e.g. `evalsha` → 1234. */
export async function commandCalls(redis: Redis): Promise<Map<string, number>> {
  const info = await redis.info('commandstats');
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
    calls.set(match[1] ?? '', Number(match[2]));
  }
  return calls;
}

/** The calls made between two snapshots, per command, largest first (the INFO call itself excluded). */
export function callsBetween(
  before: ReadonlyMap<string, number>,
  after: ReadonlyMap<string, number>,
): Map<string, number> {
  const delta: [string, number][] = [];
  for (const [command, count] of after) {
    const made = count - (before.get(command) ?? 0) - (command === 'info' ? 1 : 0);
    if (made > 0) delta.push([command, made]);
  }
  return new Map(delta.sort((a, b) => b[1] - a[1]));
}

/** The total of a per-command map. */
export function totalCalls(calls: ReadonlyMap<string, number>): number {
  let total = 0;
  for (const count of calls.values()) total += count;
  return total;
}
