/**
 * One chaos scenario: real processes against the simulator and a real Redis, something broken on
 * purpose, and a verdict on whether paw kept its promises. Each scenario lives in its own file
 * (`scenario-<n>-<slug>.ts`) and is listed in `scenarios.ts`.
 */
export interface ChaosScenario {
  /** The number the issues and BENCHMARKS.md use (1 to 9). */
  readonly id: number;
  /** Short name, used by `--only` and in the verdict line. */
  readonly slug: string;
  /** One line: what is broken and what must still hold. */
  readonly title: string;
  run(context: ChaosContext): Promise<ChaosVerdict>;
}

export interface ChaosContext {
  /** The small form that runs in CI (a minute or so per scenario at most); false: the full one. */
  readonly quick: boolean;
  /** Prints one progress line (to standard error), prefixed with the scenario. */
  progress(line: string): void;
}

export interface ChaosVerdict {
  readonly passed: boolean;
  /** One line saying what was checked and what was found, e.g. "2000/2000 outcomes, 0 twice". */
  readonly verdict: string;
  /** Figures worth publishing (counts, seconds), for `--json` and BENCHMARKS.md. */
  readonly figures?: Readonly<Record<string, number | string>>;
}
