/**
 * A request that was never sent: its turn at the request gate came after the time it had to be
 * sent by (`CallSpec.sendBy`). Nothing left this process, so nothing happened on the platform.
 * A snapshot trigger is sent only while the intent recorded before it can still account for it:
 * later, a trigger that did reach the platform might show only after another step had looked for
 * it and found nothing (src/job-kinds/snapshot/trigger-window.ts).
 */
export class NotSentError extends Error {
  override readonly name = 'NotSentError';

  constructor(
    readonly operation: string,
    readonly sendBy: number,
    now: number,
  ) {
    super(
      `${operation}: not sent: its turn at the request gate came ${now - sendBy} ms after the time it had to be sent by`,
    );
  }
}
