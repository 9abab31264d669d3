import { Counter, Gauge, type Registry } from 'prom-client';

/** What a reload of the job definitions came to. */
export type ReloadResult = 'applied' | 'unchanged' | 'refused';

/**
 * The job definitions of a scheduling process: how many it runs, whether the last change to
 * them was refused (the last valid set keeps running, which nobody notices without an alert),
 * and every reload by result.
 */
export class DefinitionMetrics {
  private readonly reloads: Counter<'result'>;
  private readonly loaded: Gauge;
  private readonly refused: Gauge;

  constructor(registry: Registry) {
    this.reloads = new Counter({
      name: 'paw_definitions_reloads_total',
      help: 'Reloads of the job definitions (on a change in the folder or SIGHUP), by result (applied, unchanged, refused).',
      labelNames: ['result'],
      registers: [registry],
    });
    this.loaded = new Gauge({
      name: 'paw_definitions_loaded',
      help: 'Job definitions this process runs now.',
      registers: [registry],
    });
    this.refused = new Gauge({
      name: 'paw_definitions_change_refused',
      help: '1 while the last change to the job definitions is refused (the last valid set keeps running), else 0.',
      registers: [registry],
    });
  }

  /** The definitions a process starts with. */
  started(count: number): void {
    this.loaded.set(count);
    this.refused.set(0);
  }

  reloaded(result: ReloadResult, count: number): void {
    this.reloads.inc({ result });
    this.loaded.set(count);
    // With none running there is no last valid set: `paw_definitions_loaded` 0 says it (alerted).
    this.refused.set(result === 'refused' && count > 0 ? 1 : 0);
  }
}
