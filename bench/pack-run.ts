/**
 * `npm run bench -- pack-run [ITEMS]`: what packing one ended run costs the process that packs it
 * (a scheduler: src/outcomes/run-packer.ts). Fills a private redis-server with one finished night
 * of ITEMS snapshot items (default 100,000) through paw's recording path, packs it, and prints the
 * wall and CPU time, the heap's peak, the longest stall of this process's event loop (a 1 ms
 * timer's lateness) and Redis's bytes per item before and after.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Redis } from 'ioredis';
import { Outcomes } from '../src/outcomes/outcomes.js';
import { RunPacker } from '../src/outcomes/run-packer.js';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { fillOutcomeStore, fillWorkloads } from './support/outcome-fill.js';
import { settledUsedMemoryBytes } from './support/used-memory.js';

export async function run(args: string[]): Promise<void> {
  const items = Number(args[0] ?? 100_000);
  if (!Number.isInteger(items) || items <= 0) {
    process.stderr.write(
      `usage: npm run bench -- pack-run [ITEMS] (a whole number, not '${args[0]}')\n`,
    );
    process.exitCode = 2;
    return;
  }
  const server = await startPrivateRedisServer();
  const redis = new Redis(server.url);
  try {
    const outcomes = new Outcomes(redis, 'bench');
    const empty = await settledUsedMemoryBytes(redis);
    process.stdout.write(`pack-run: recording one night of ${items} items\n`);
    const [runId = ''] = await fillOutcomeStore(outcomes, {
      definitionId: 'nightly',
      nights: 1,
      workloads: fillWorkloads(items),
      firstNight: Date.now(),
    });
    const recorded = (await settledUsedMemoryBytes(redis)) - empty;
    // The fill's garbage collected first, so the heap's peak is the pack's own.
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
    let peakHeap = process.memoryUsage().heapUsed;
    const heapBefore = peakHeap;
    let longestStall = 0;
    let last = performance.now();
    const sampler = setInterval(() => {
      const now = performance.now();
      longestStall = Math.max(longestStall, now - last - 1);
      last = now;
      peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
    }, 1);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const outcome = await new RunPacker(redis, outcomes.keys).pack(runId);
    const used = process.cpuUsage(cpu);
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    const packed = (await settledUsedMemoryBytes(redis)) - empty;
    process.stdout.write(
      `pack-run: ${JSON.stringify(outcome)}\n` +
        `pack-run: ${wallMs.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU, ` +
        `heap ${(heapBefore / 1e6).toFixed(0)} → peak ${(peakHeap / 1e6).toFixed(0)} MB, ` +
        `longest event-loop stall ${longestStall.toFixed(0)} ms\n` +
        `pack-run: Redis ${(recorded / items).toFixed(0)} B an item as recorded, ${(packed / items).toFixed(0)} B packed (this one run; the per-workload indexes included)\n`,
    );
  } finally {
    redis.disconnect();
    await server.stop();
  }
}
