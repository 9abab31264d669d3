/**
 * The benchmark dispatcher: `npm run bench -- <name> [options]` runs `bench/<name>.ts`.
 * Each benchmark exports `run(args)` and prints its figures with the command that produced them.
 * Figures live here, never in tests.
 */
const BENCHMARKS: Record<
  string,
  { description: string; load: () => Promise<{ run: (args: string[]) => Promise<void> }> }
> = {
  simulator: {
    description: 'getWorkload requests per second on one core, and the memory of a large inventory',
    load: () => import('./simulator.js'),
  },
  graphql: {
    description:
      'paw sim with the whole published GraphQL schema: start-up, a typical list (p50, p99), schema build',
    load: () => import('./graphql.js'),
  },
  nightly: {
    description:
      'a night of snapshots: paw against the sequential and the concurrent script (--quick: N = 1,000)',
    load: () => import('./nightly.js'),
  },
  scheduler: {
    description:
      'three replicas, a thousand fires: fire-to-enqueue latency (median, p99), duplicates, misses',
    load: () => import('./scheduler.js'),
  },
  takeover: {
    description:
      'a worker killed mid-trigger: how long until another takes its snapshot item over, triggers',
    load: () => import('./takeover.js'),
  },
  coverage: {
    description: 'paw coverage over one definition of 10,000 workloads with 90 nights stored',
    load: () => import('./coverage.js'),
  },
  longrun: {
    description:
      'paw over months: K nights through long-lived processes, then a store of 90 nights × 10,000 items',
    load: () => import('./longrun.js'),
  },
  'pack-run': {
    description: 'what packing one ended run of 100,000 items costs its process (CPU, heap, stall)',
    load: () => import('./pack-run.js'),
  },
  'ops-abuse': {
    description:
      'issue 36: probes while 160 sockets are held, 300 stale values, a chunk that inflates to 1 GiB',
    load: () => import('./ops-abuse.js'),
  },
  'cli-start': {
    description: 'how long paw --help and paw runs take to start and answer (wall and CPU)',
    load: () => import('./cli-start.js'),
  },
  'idle-cpu': {
    description: 'the CPU the paw start processes use between nights (ms of CPU per second)',
    load: () => import('./idle-cpu.js'),
  },
  queue: {
    description: "paw's cost per job against BullMQ's own cost for a job that does nothing",
    load: () => import('./queue.js'),
  },
};

const [name, ...args] = process.argv.slice(2);
const benchmark = name === undefined ? undefined : BENCHMARKS[name];
if (benchmark === undefined) {
  process.stderr.write(
    `usage: npm run bench -- <name> [options]\n\nbenchmarks:\n${Object.entries(BENCHMARKS)
      .map(([key, value]) => `  ${key.padEnd(12)} ${value.description}`)
      .join('\n')}\n`,
  );
  process.exitCode = 2;
} else {
  const module = await benchmark.load();
  await module.run(args);
}
