import { eventually } from '../../../test/testkit/eventually.js';
import { describeProgress, type NightProgress, type SnapshotNight } from './snapshot-night.js';

/** How many items must end after Redis's return for {@link OutageReport.steadySeconds}. */
export const STEADY_ITEMS = 50;

/** Waits until at least `fraction` of the night's items have ended; returns where it stands. */
export async function waitForEndedFraction(
  night: SnapshotNight,
  fraction: number,
  timeoutMs: number,
): Promise<NightProgress> {
  let progress: NightProgress | undefined;
  return eventually(
    `the night to reach ${Math.round(fraction * 100)}%`,
    async () => {
      progress = await night.progress();
      return progress !== undefined &&
        progress.items > 0 &&
        progress.ended >= fraction * progress.items
        ? progress
        : undefined;
    },
    { timeoutMs, intervalMs: 200, detail: () => describeProgress(progress) },
  );
}

/** What a Redis outage came to: how long it lasted and how soon paw moved on after it. */
export interface OutageReport {
  /** From taking Redis away to it accepting connections again. */
  readonly downSeconds: number;
  /** From Redis accepting connections again to the first item that ended after it; undefined: none. */
  readonly resumeSeconds: number | undefined;
  /**
   * From Redis accepting connections again to the {@link STEADY_ITEMS}th item ended after it (or
   * the last one, if fewer were left): the first one alone could be a write queued before the
   * outage and sent on reconnection; this one is work done after it.
   */
  readonly steadySeconds: number | undefined;
  /** Items ended when Redis went away, and when paw was seen to move again. */
  readonly endedBefore: number;
  readonly endedAfter: number | undefined;
}

/**
 * Takes the night's Redis away (`signal`: SIGTERM is a clean shutdown, with the append-only
 * file written), keeps it away for `awayMs` (0: a plain restart), brings it back on the same
 * port and data directory, then measures how long until paw records progress again: an item
 * that ends (the outcome store's ended count goes up). Nothing can be recorded while Redis is
 * away, so the first increase is the workers' first completed work after its return.
 */
export async function redisOutage(
  night: SnapshotNight,
  options: {
    signal: 'SIGTERM' | 'SIGKILL';
    awayMs: number;
    resumeTimeoutMs: number;
    say: (line: string) => void;
  },
): Promise<OutageReport> {
  const before = await night.progress();
  const endedBefore = before?.ended ?? 0;
  const wentAway = Date.now();
  await night.redis.down(options.signal);
  options.say(`Redis taken away (${options.signal}) at ${describeProgress(before)}`);
  while (Date.now() - wentAway < options.awayMs) {
    const left = options.awayMs - (Date.now() - wentAway);
    await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, left)));
    if (Date.now() - wentAway < options.awayMs) {
      const live = night.liveWorkers().length;
      options.say(
        `Redis away for ${((Date.now() - wentAway) / 1000).toFixed(0)} s; ${live} worker process(es) running`,
      );
    }
  }
  await night.redis.up();
  const back = Date.now();
  const downSeconds = (back - wentAway) / 1000;
  options.say(`Redis back on the same port after ${downSeconds.toFixed(1)} s`);
  let resumeSeconds: number | undefined;
  let endedAfter: number | undefined;
  // No failure on a timeout: a night that never got steady again is a figure of the report.
  return eventually(
    'paw to move on after the outage',
    async (): Promise<OutageReport | undefined> => {
      const progress = await night.progress();
      const since = (Date.now() - back) / 1000;
      if (progress !== undefined && progress.ended > endedBefore && resumeSeconds === undefined) {
        resumeSeconds = since;
        endedAfter = progress.ended;
        options.say(
          `first progress ${since.toFixed(1)} s after Redis came back: ${describeProgress(progress)}`,
        );
      }
      const steadyAt = Math.min(endedBefore + STEADY_ITEMS, progress?.items ?? Infinity);
      if (progress !== undefined && resumeSeconds !== undefined && progress.ended >= steadyAt) {
        options.say(
          `${progress.ended - endedBefore} items ended ${since.toFixed(1)} s after Redis came back`,
        );
        return { downSeconds, resumeSeconds, steadySeconds: since, endedBefore, endedAfter };
      }
      if (since * 1000 > options.resumeTimeoutMs) {
        return { downSeconds, resumeSeconds, steadySeconds: undefined, endedBefore, endedAfter };
      }
      return undefined;
    },
    { timeoutMs: Infinity, intervalMs: 100 },
  );
}
