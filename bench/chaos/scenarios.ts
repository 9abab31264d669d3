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
  {
    id: 5,
    slug: 'scheduler-kill-window',
    load: async () => (await import('./scenario-5-scheduler-kill-window.js')).scenario,
  },
  {
    id: 6,
    slug: 'rotation-kills',
    load: async () => (await import('./scenario-6-rotation-kills.js')).scenario,
  },
  {
    id: 7,
    slug: 'secret-leaks',
    load: async () => (await import('./scenario-7-secret-leaks.js')).scenario,
  },
  {
    id: 8,
    slug: 'sentinel-failover',
    load: async () => (await import('./scenario-8-sentinel-failover.js')).scenario,
  },
  {
    id: 9,
    slug: 'slow-platform-kills',
    load: async () => (await import('./scenario-9-slow-platform-kills.js')).scenario,
  },
];
