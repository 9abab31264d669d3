import type { Settings } from '../../config/settings-schema.js';

/**
 * How long after its intent is on record a snapshot trigger may still be sent. A trigger waits
 * for its turn at the request gate (normally well under a second: a lane keeps about a second of
 * the rate waiting there; up to 8 s while every process pauses after a 429); one whose turn comes
 * later is not sent at all (a NotSentError), and its item is triggered again under a new intent.
 * This is what lets a step that finds the intent without an answer (the worker died, or lost the
 * lane) know how long to wait before it may conclude that nothing was sent: see
 * {@link triggerVisibleBy}.
 */
export const TRIGGER_SEND_WINDOW_MS = 5_000;

/**
 * When a trigger whose intent was put on record at `attemptAt` (epoch ms, this worker's clock)
 * shows on the platform if it was sent at all: it left by `attemptAt + TRIGGER_SEND_WINDOW_MS`
 * (or never: the HTTP layer refuses to send it later), the platform answered it or the request
 * timed out within `platform.timeouts.headersMs` (a request the platform has not acted on by the
 * time paw gives up on it is taken as never received), and its activity shows within
 * `platform.activityDelayMs` of the platform acting on it. Before this time, a lookup that finds
 * nothing proves nothing; from it on, a trigger that left no trace never reached the platform,
 * and triggering again cannot take a second snapshot.
 */
export function triggerVisibleBy(
  attemptAt: number,
  platform: {
    readonly activityDelayMs: Settings['platform']['activityDelayMs'];
    readonly timeouts: Pick<Settings['platform']['timeouts'], 'headersMs'>;
  },
): number {
  return (
    attemptAt + TRIGGER_SEND_WINDOW_MS + platform.timeouts.headersMs + platform.activityDelayMs
  );
}
