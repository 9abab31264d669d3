import type { FaultsInput } from '../../src/simulator/fault-rules.js';

/**
 * How fast the platform answers, as a test dimension. The simulator answers in a few
 * milliseconds; the real platform takes hundreds of milliseconds to seconds a call (its SDKs'
 * users report timeouts on large accounts), and paw's promises (one trigger per workload, every
 * item ended, records that agree) must hold at both. Behaviour that depends on timing is tested
 * at each.
 */
export interface PlatformLatency {
  readonly name: 'fast' | 'real';
  /** The simulator's faults for it (`faults` of its options). */
  readonly faults: FaultsInput;
  /**
   * paw's settings beside it: a call may take seconds, so the time paw gives an answer is longer
   * than the kit's fast default (the time after which a trigger whose answer was lost is taken
   * as never received counts it too: src/job-kinds/snapshot/trigger-window.ts).
   */
  readonly settings: { readonly platform: { readonly timeouts: { readonly headersMs: number } } };
}

/** The simulator as it is: answers in milliseconds. */
export const FAST_PLATFORM: PlatformLatency = {
  name: 'fast',
  faults: { operations: {} },
  settings: { platform: { timeouts: { headersMs: 5_000 } } },
};

/**
 * The platform's real latency: every call drawn from a lognormal of median 900 ms (sigma 0.45):
 * most calls between 300 ms and 2.5 s, one in a hundred longer, the longest of a night near 5 s.
 */
const REAL_PLATFORM: PlatformLatency = {
  name: 'real',
  faults: { default: { latency: { medianMs: 900, sigma: 0.45 } }, operations: {} },
  settings: { platform: { timeouts: { headersMs: 15_000 } } },
};

/** Both, for `describe.each`. */
export const PLATFORM_LATENCIES = [FAST_PLATFORM, REAL_PLATFORM] as const;
