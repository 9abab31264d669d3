import { Agent, request } from 'undici';

/** One reading of the simulator's count of requests received. */
interface Reading {
  /** Epoch ms. */
  readonly at: number;
  readonly requests: number;
}

/**
 * How many requests reached the platform over a stretch of the night: the simulator's own count
 * (`requests` of `GET /_sim/stats`, which counts a request when it arrives; its `/_sim` calls
 * are not counted), read every `everyMs`. The figure issue 33 asks for is the rate while the
 * triggers go out: with every trigger a request and the gate shared by triggers and polls, it
 * says whether paw kept the platform's rate busy whatever its latency.
 */
export class RequestRateSampler {
  private stopped = false;
  private readonly readings: Reading[] = [];
  private readonly agent = new Agent({ connections: 1 });
  private readonly done: Promise<void>;

  constructor(
    private readonly baseUrl: string,
    everyMs = 1_000,
  ) {
    this.done = this.run(everyMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
    await this.agent.close();
  }

  /**
   * Requests per second between two moments (epoch ms), from the readings nearest inside them;
   * undefined when fewer than two readings fall between them.
   */
  rateBetween(from: number, to: number): number | undefined {
    const inside = this.readings.filter((reading) => reading.at >= from && reading.at <= to);
    const first = inside[0];
    const last = inside.at(-1);
    if (first === undefined || last === undefined || last.at <= first.at) return undefined;
    return ((last.requests - first.requests) * 1000) / (last.at - first.at);
  }

  private async run(everyMs: number): Promise<void> {
    while (!this.stopped) {
      try {
        const answer = await request(`${this.baseUrl}/_sim/stats`, { dispatcher: this.agent });
        const stats = (await answer.body.json()) as { requests: number };
        this.readings.push({ at: Date.now(), requests: stats.requests });
      } catch {
        // A missed reading leaves a longer stretch between two others.
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  }
}
