import type { ChaosScenario } from './chaos-scenario.js';

/**
 * Every chaos scenario, in the order. Each entry loads its module only when it runs, so
 * `--only` does not pay for the others.
 */
export const SCENARIOS: readonly {
  id: number;
  slug: string;
  load: () => Promise<ChaosScenario>;
}[] = [
  {
    id: 1,
    slug: 'worker-kills',
    load: async () => (await import('./scenario-1-worker-kills.js')).scenario,
  },
  {
    id: 2,
    slug: 'platform-faults',
    load: async () => (await import('./scenario-2-platform-faults.js')).scenario,
  },
  {
    id: 3,
    slug: 'redis-restart',
    load: async () => (await import('./scenario-3-redis-restart.js')).scenario,
  },
  {
    id: 4,
    slug: 'redis-outage',
    load: async () => (await import('./scenario-4-redis-outage.js')).scenario,
  },
];
