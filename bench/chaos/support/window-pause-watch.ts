import type { PlatformClient } from '../../../src/platform/platform-client.js';

/** One reading of an SLA Domain's pause state on one cluster, through the REST API. */
export interface PauseSample {
  /** Milliseconds since the epoch. */
  readonly at: number;
  readonly state: string;
}

/**
 * Reads, every `intervalMs`, the pause state of SLA Domains on clusters through the platform's
 * REST API (as an administrator would see it), until stopped. A chaos scenario then asks what
 * the states were during a window and when they changed.
 */
export class WindowPauseWatch {
  private readonly samples = new Map<string, PauseSample[]>();
  private stopped = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly admin: PlatformClient,
    private readonly watched: readonly { slaDomainId: string; clusterId: string }[],
    private readonly intervalMs = 250,
  ) {
    for (const target of watched) this.samples.set(keyOf(target), []);
  }

  start(): void {
    this.loop = (async () => {
      while (!this.stopped) {
        const domains = new Set(this.watched.map((target) => target.slaDomainId));
        for (const slaDomainId of domains) {
          // A failed read (the machine is busy) is a missing sample, not a state.
          const domain = await this.admin.rest.slaDomains.get(slaDomainId).catch(() => undefined);
          if (domain === undefined) continue;
          const at = Date.now();
          for (const target of this.watched.filter((t) => t.slaDomainId === slaDomainId)) {
            const state =
              domain.clusters?.find((cluster) => cluster.clusterId === target.clusterId)
                ?.pauseStatus ?? 'ABSENT';
            this.samples.get(keyOf(target))?.push({ at, state });
          }
        }
        await new Promise((resolve) => setTimeout(resolve, this.intervalMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  /** The samples of one SLA Domain on one cluster, oldest first. */
  of(slaDomainId: string, clusterId: string): readonly PauseSample[] {
    return this.samples.get(keyOf({ slaDomainId, clusterId })) ?? [];
  }

  /** The latest state read, if any. */
  latest(slaDomainId: string, clusterId: string): string | undefined {
    return this.of(slaDomainId, clusterId).at(-1)?.state;
  }
}

function keyOf(target: { slaDomainId: string; clusterId: string }): string {
  return `${target.slaDomainId}/${target.clusterId}`;
}
