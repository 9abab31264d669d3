/**
 * What the platform client tells an observer (metrics, in paw's processes) about its traffic.
 * Events carry no URL, header, body or token: only what a counter may be labelled with.
 */

/** One attempt of one platform request. */
interface PlatformCallEvent {
  /** The REST operationId, GraphQL operation name or paw's name for the call (`clientToken`). */
  readonly operation: string;
  readonly method: string;
  /** The HTTP status; `null` when no response came (timeout, refused connection). */
  readonly status: number | null;
  readonly durationMs: number;
  /** 1 for the first attempt of a request, 2+ for retries. */
  readonly attempt: number;
  /** The failure's kind (`rate_limited`, `unavailable`, ...) when the attempt failed. */
  readonly failureKind?: string;
}

/** A request for a new access token finished (one per refresh, whatever its retries). */
interface TokenRefreshEvent {
  readonly result: 'success' | 'failure';
}

/**
 * Hooks the platform client calls as it works. Each is optional and must return quickly; an
 * exception thrown by an observer is swallowed, never failing the call it observes.
 */
export interface PlatformObserver {
  onCall?(event: PlatformCallEvent): void;
  onTokenRefresh?(event: TokenRefreshEvent): void;
}

/** Calls `notify`, swallowing anything it throws: observing must never break the observed. */
export function safelyNotify(notify: () => void): void {
  try {
    notify();
  } catch {
    // An observer's own failure is its problem; the platform call carries on.
  }
}
