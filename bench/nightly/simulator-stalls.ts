import { Agent, request } from 'undici';

/**
 * How long the simulator went without answering during a contender's night: a small request
 * (`GET /_sim/faults`) every `everyMs`, one at a time, timed. The simulator's token bucket
 * charges a request when its event loop reads it, not when it arrived, so a stall of its loop
 * longer than its burst's worth of time (a second at the bench's settings) turns requests sent
 * within the rate into 429s (BENCHMARKS.md, "The 10× night"). This says whether one happened.
 * The probe's own lateness is measured too: a stall of the bench's process is not the
 * simulator's.
 */
export interface SimulatorStalls {
  /** The longest answer, ms. */
  readonly longestAnswerMs: number;
  /** Answers slower than {@link SLOW_MS}. */
  readonly slowAnswers: number;
  /** The longest the probe's own timer fired late, ms. */
  readonly longestProbeLagMs: number;
  readonly probes: number;
}

/** An answer this slow is a stall worth counting. */
export const SLOW_MS = 500;

export class SimulatorStallProbe {
  private stopped = false;
  private readonly done: Promise<SimulatorStalls>;
  private readonly agent = new Agent({ connections: 1 });
  private stopping: Promise<SimulatorStalls> | undefined;

  constructor(baseUrl: string, everyMs = 100) {
    this.done = this.run(`${baseUrl}/_sim/faults`, everyMs);
  }

  /** Stops probing; resolves with what it saw (the same, however often it is called). */
  stop(): Promise<SimulatorStalls> {
    this.stopped = true;
    this.stopping ??= this.done.then(async (stalls) => {
      await this.agent.close();
      return stalls;
    });
    return this.stopping;
  }

  private async run(url: string, everyMs: number): Promise<SimulatorStalls> {
    let longestAnswerMs = 0;
    let longestProbeLagMs = 0;
    let slowAnswers = 0;
    let probes = 0;
    while (!this.stopped) {
      const due = performance.now() + everyMs;
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      longestProbeLagMs = Math.max(longestProbeLagMs, performance.now() - due);
      const started = performance.now();
      try {
        const answer = await request(url, { dispatcher: this.agent });
        await answer.body.dump();
      } catch {
        // A refused or reset probe is timed like an answer: the simulator did not serve it.
      }
      const answerMs = performance.now() - started;
      longestAnswerMs = Math.max(longestAnswerMs, answerMs);
      if (answerMs > SLOW_MS) slowAnswers++;
      probes++;
    }
    return { longestAnswerMs, slowAnswers, longestProbeLagMs, probes };
  }
}
