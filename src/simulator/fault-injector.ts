import type { FaultRule, Faults, Latency } from './fault-rules.js';
import type { OperationId } from './operation-ids.js';
import type { SeededRandom } from './seeded-random.js';

export type FaultKind = 'error' | 'reset' | 'hang' | 'malformed' | 'tooManyRequests';

/** What to do to one request. */
export interface FaultDecision {
  readonly latencyMs: number;
  readonly kind: FaultKind | undefined;
  /** For `error`: the status to answer. */
  readonly status: 500 | 502 | 503;
}

/**
 * Decides, per request, which configured fault (if any) hits it. Draws come from the seeded
 * stream, so a run with the same seed and the same request order injects the same faults.
 */
export class FaultInjector {
  private faults: Faults = { operations: {} };
  private withheld: ReadonlySet<string> = new Set();
  /** Faults left for rules that set `times`. */
  private readonly remaining = new Map<FaultRule, number>();
  private active = false;

  constructor(
    private readonly random: SeededRandom,
    initial: Faults,
  ) {
    this.set(initial);
  }

  set(faults: Faults): void {
    this.faults = faults;
    this.withheld = new Set(faults.withheldFields ?? []);
    this.remaining.clear();
    const rules = [faults.default, ...Object.values(faults.operations)];
    for (const rule of rules) if (rule?.times !== undefined) this.remaining.set(rule, rule.times);
    this.active = rules.some((rule) => rule !== undefined);
  }

  /** The configuration, with `times` showing how many faults each rule has left. */
  get(): Faults {
    const withRemaining = (rule: FaultRule): FaultRule => {
      const left = this.remaining.get(rule);
      return left === undefined ? { ...rule } : { ...rule, times: left };
    };
    const operations: Faults['operations'] = {};
    for (const [operation, rule] of Object.entries(this.faults.operations) as [
      OperationId,
      FaultRule,
    ][]) {
      operations[operation] = withRemaining(rule);
    }
    return {
      ...(this.faults.default === undefined ? {} : { default: withRemaining(this.faults.default) }),
      operations,
      ...(this.faults.withheldFields === undefined
        ? {}
        : { withheldFields: [...this.faults.withheldFields] }),
    };
  }

  /** The GraphQL fields withheld as if behind a feature flag (`Type.field`). */
  withheldFields(): ReadonlySet<string> {
    return this.withheld;
  }

  /** Undefined when nothing is to be done (the fast path when no faults are configured). */
  decide(operation: OperationId): FaultDecision | undefined {
    if (!this.active) return undefined;
    const rule = this.faults.operations[operation] ?? this.faults.default;
    if (rule === undefined) return undefined;
    const left = this.remaining.get(rule);
    if (left === 0) return undefined;
    const latencyMs = rule.latency === undefined ? 0 : this.drawLatency(rule.latency);
    let draw = this.random.next();
    let kind: FaultKind | undefined;
    for (const [candidate, rate] of [
      ['tooManyRequests', rule.tooManyRequestsRate],
      ['reset', rule.resetRate],
      ['hang', rule.hangRate],
      ['error', rule.errorRate],
      ['malformed', rule.malformedRate],
    ] as const) {
      if (draw < rate) {
        kind = candidate;
        break;
      }
      draw -= rate;
    }
    if (kind !== undefined && left !== undefined) this.remaining.set(rule, left - 1);
    const status = kind === 'error' ? this.random.pick(rule.errorStatuses) : 500;
    if (latencyMs === 0 && kind === undefined) return undefined;
    return { latencyMs, kind, status };
  }

  private drawLatency(latency: Latency): number {
    if ('fixedMs' in latency) return latency.fixedMs;
    if ('minMs' in latency)
      return latency.minMs + this.random.next() * (latency.maxMs - latency.minMs);
    return Math.min(600_000, this.random.lognormal(latency.medianMs, latency.sigma));
  }
}
