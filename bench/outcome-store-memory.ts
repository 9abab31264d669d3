/**
 * How much Redis memory and time the outcome store takes for nightly snapshot runs of 5,000
 * workloads: records RUNS runs of ITEMS items each, each item as a snapshot night leaves it
 * (the ids, names, job ids, status links and details of `npm run bench -- nightly`'s items;
 * 2% failed with an error message), then reports used memory per run and per item as recorded and
 * once packed (the scheduler's PackingSweeper, as `outcomes.packAfterSeconds` after each run's end),
 * the time to record them, and the time to list one run's failed items and one target's history.
 *
 *   npx tsx bench/outcome-store-memory.ts            # 3 runs × 5,000 items
 *   RUNS=10 ITEMS=5000 npx tsx bench/outcome-store-memory.ts
 *
 * It starts its own private redis-server, so it never touches a Redis you care about.
 */
import { Redis } from 'ioredis';
import { OutcomeQueries } from '../src/outcomes/outcome-queries.js';
import { trimOutcomes } from '../src/outcomes/outcome-retention.js';
import { Outcomes } from '../src/outcomes/outcomes.js';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { settledUsedMemoryBytes, usedMemoryBytes } from './support/used-memory.js';
import { packEndedRuns } from './support/pack-ended-runs.js';
import { fillWorkloads, snapshotItemUpdate } from './support/outcome-fill.js';

const RUNS = Number(process.env['RUNS'] ?? 3);
const ITEMS = Number(process.env['ITEMS'] ?? 5000);
const CONCURRENCY = 50;

const server = await startPrivateRedisServer();
const redis = new Redis(server.url);
try {
  const store = new Outcomes(redis, 'bench');
  const queries = new OutcomeQueries(redis, 'bench');
  const workloads = fillWorkloads(ITEMS);
  const before = await usedMemoryBytes(redis);
  let recordMs = 0;
  const night = Date.parse('2025-06-01T01:00:00Z');
  for (let run = 0; run < RUNS; run++) {
    const runId = `nightly-vms@2025060${run + 1}T010000Z`;
    await store.runs.create({
      runId,
      definitionId: 'nightly-vms',
      kind: 'snapshot',
      fireTime: new Date(night + run * 86_400_000),
      trigger: 'cron',
      status: 'queued',
    });
    await store.runs.start(runId);
    const started = performance.now();
    for (let offset = 0; offset < ITEMS; offset += CONCURRENCY) {
      await Promise.all(
        workloads
          .slice(offset, offset + CONCURRENCY)
          .map((workload, index) =>
            store.items.record(
              runId,
              workload.id,
              snapshotItemUpdate(workload, night + run * 86_400_000, (offset + index) % 50 === 0),
            ),
          ),
      );
    }
    recordMs += performance.now() - started;
    await store.runs.finish(runId);
  }
  const unpacked = (await usedMemoryBytes(redis)) - before;
  const packing = performance.now();
  await packEndedRuns(redis, 'bench');
  const packMs = performance.now() - packing;
  const used = (await settledUsedMemoryBytes(redis)) - before;

  let started = performance.now();
  let failed = 0;
  for await (const _item of queries.items({
    runId: 'nightly-vms@20250601T010000Z',
    statuses: ['failed'],
  }))
    failed++;
  const failedMs = performance.now() - started;
  started = performance.now();
  let history = 0;
  for await (const _item of queries.items({ target: workloads[7]?.name ?? '' })) history++;
  const historyMs = performance.now() - started;

  const itemsHash =
    Number(
      await redis.memory(
        'USAGE',
        'bench:outcomes:packed:nightly-vms@20250601T010000Z',
        'SAMPLES',
        0,
      ),
    ) +
    Number(
      await redis.memory(
        'USAGE',
        'bench:outcomes:packed-index:nightly-vms@20250601T010000Z',
        'SAMPLES',
        0,
      ),
    );
  const names = Number(await redis.memory('USAGE', 'bench:outcomes:target-names', 'SAMPLES', 0));
  const oneTarget = Number(
    await redis.memory('USAGE', `bench:outcomes:target:${workloads[7]?.id ?? ''}`, 'SAMPLES', 0),
  );
  console.log(
    `breakdown: packed items per run ${itemsHash} B; target-names ${names} B; one target index ${oneTarget} B`,
  );
  // The trim of the first night alone: its retention ends between the first and second fire.
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  await redis.config('SET', 'slowlog-max-len', '1000000');
  await redis.slowlog('RESET');
  await redis.config('RESETSTAT');
  started = performance.now();
  const trimmed = await trimOutcomes(redis, 'bench', {
    now: new Date(night + 90 * 86_400_000 + 3_600_000),
    retentionDays: 90,
  });
  const trimMs = performance.now() - started;
  const log = (await redis.slowlog('GET', -1)) as [number, number, number, string[]][];
  const slowest = [...log]
    .sort((a, b) => b[2] - a[2])
    .slice(0, 5)
    .map((entry) => `${entry[3][0] ?? ''} ${(entry[2] / 1000).toFixed(1)}`);
  const longest = log.reduce(
    (top, entry) => (entry[2] > top[2] ? entry : top),
    log[0] ?? [0, 0, 0, []],
  );
  await redis.config('SET', 'slowlog-log-slower-than', '10000');
  const deletes = (await redis.info('commandstats'))
    .split('\n')
    .filter((line) => /^cmdstat_(del|unlink|hdel|srem):/.test(line))
    .map((line) => line.replace(/,rejected_calls.*$/, '').trim());
  console.log(`trim's deleting commands:    ${deletes.join('; ')}`);
  console.log(
    `trim of one night:           ${trimmed.items} items in ${trimMs.toFixed(0)} ms; longest command ${(longest[2] / 1000).toFixed(2)} ms (${longest[3].slice(0, 2).join(' ')}), ${log.length} commands (slowest, ms: ${slowest.join(', ')})`,
  );
  const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  console.log(`runs × items:                ${RUNS} × ${ITEMS}`);
  console.log(
    `memory used, as recorded:    ${mib(unpacked)} (${Math.round(unpacked / RUNS / ITEMS)} B per item)`,
  );
  console.log(
    `memory used, packed:         ${mib(used)} (${mib(used / RUNS)} per run, ${Math.round(used / RUNS / ITEMS)} B per item; packed in ${packMs.toFixed(0)} ms)`,
  );
  console.log(
    `record items:                ${Math.round((RUNS * ITEMS) / (recordMs / 1000))} items/s (${CONCURRENCY} concurrent calls)`,
  );
  console.log(`failed items of one run:     ${failed} in ${failedMs.toFixed(1)} ms`);
  console.log(`history of one target:       ${history} items in ${historyMs.toFixed(1)} ms`);
  console.log(`90 days of one such run:     about ${mib((used / RUNS) * 90)}`);
} finally {
  await redis.quit();
  await server.stop();
}
