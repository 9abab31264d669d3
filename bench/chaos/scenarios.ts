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
];
