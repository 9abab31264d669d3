import { setTimeout as sleep } from 'node:timers/promises';
import type { Secret } from '../../config/secret.js';
import type { Logger } from '../../shared/logger.js';
import { safelyNotify, type PlatformObserver } from '../platform-observer.js';
import type { HttpMethod } from '../defaults/default-routes.js';
import { jitteredBackoff } from '../../shared/jittered-backoff.js';
import { AnswerBytes, type AnswerSize } from './answer-limits.js';
import { errorFromResponse } from './error-factory.js';
import type { HttpTransport, IncomingResponse } from './http-transport.js';
import { isSafeToRepeat } from './is-retryable.js';
import { assertSameOrigin } from './origin-guard.js';
import { AuthenticationError, isPlatformError, type PlatformError } from './platform-errors.js';
import { NotSentError } from './not-sent-error.js';
import { redactUrl } from './redaction.js';
import type { RequestGate } from '../rate-limit/request-gate.js';

/** Where a call gets its bearer token, and where it reports one the server refused. */
export interface BearerAuthorization {
  token(signal?: AbortSignal): Promise<Secret>;
  /** The server answered 401 to `token`: forget it, so that the next `token()` gets a new one. */
  rejected(token: Secret): void;
}

type RequestBody = { readonly json: unknown } | { readonly form: Readonly<Record<string, string>> };

export interface CallSpec<T> {
  /** REST operationId, GraphQL operation name or paw's name for the call (`clientToken`). */
  readonly operation: string;
  readonly method: HttpMethod;
  /** The route template, for logs (ids are not logged at info level). */
  readonly route: string;
  readonly url: URL;
  /** The only origin this call may go to (the token holder's). */
  readonly allowedOrigin: string;
  /** Whether sending the request twice is harmless. Decides what the retry layer may repeat. */
  readonly idempotent: boolean;
  readonly body?: RequestBody | undefined;
  readonly authorization?: BearerAuthorization | undefined;
  /** How large its successful answer may be (default `single`: one object). */
  readonly answer?: AnswerSize | undefined;
  /** Whether the call passes the request gate (calls to the platform do; cluster calls do not). */
  readonly gated: boolean;
  readonly signal?: AbortSignal | undefined;
  /**
   * Not sent after this time (epoch ms): a call whose turn at the gate comes later, a retry's
   * included, throws a NotSentError instead, having sent nothing.
   */
  readonly sendBy?: number | undefined;
  /**
   * Turns a 2xx response into the result, throwing a ProtocolError when it cannot. It runs inside
   * the retry loop, so a cut-off body of an idempotent request is retried like a 503.
   */
  readonly parse: (response: IncomingResponse) => T;
  /** Classifies a non-2xx response when the default (`errorFromResponse`) is not enough. */
  readonly classify?: (response: IncomingResponse, operation: string) => PlatformError;
}

export interface HttpCallerOptions {
  readonly transport: HttpTransport;
  readonly gate: RequestGate;
  readonly logger: Logger;
  /** Attempts per request, the first included. */
  readonly attempts: number;
  readonly backoff: { readonly baseDelayMs: number; readonly maxDelayMs: number };
  readonly userAgent: string;
  /** Told about every attempt (metrics); never about a URL, a header or a body. */
  readonly observer?: PlatformObserver;
}

/**
 * Every request paw sends goes through here: origin guard, bearer token, request gate, one
 * info line per attempt, classification of failures, the short retry loop and the single replay
 * after a 401. Long waits are not its business: once its few attempts are spent, the typed
 * error goes up and the queue decides when to try again.
 */
export class HttpCaller {
  constructor(private readonly options: HttpCallerOptions) {}

  async call<T>(spec: CallSpec<T>): Promise<T> {
    assertSameOrigin(spec.url, spec.allowedOrigin, spec.operation);
    const encoded = encodeBody(spec.body);
    let replayedAfter401 = false;

    for (let attempt = 1; ; attempt++) {
      spec.signal?.throwIfAborted();
      // The token first, then the gate: requests the gate had let through would otherwise wait
      // together for a token being fetched and leave at once, the burst the gate is there to stop.
      const token = spec.authorization ? await spec.authorization.token(spec.signal) : undefined;
      if (spec.gated) await this.options.gate.acquire(spec.signal);
      if (spec.sendBy !== undefined && Date.now() > spec.sendBy) {
        throw new NotSentError(spec.operation, spec.sendBy, Date.now());
      }

      const started = performance.now();
      let outcome: { value: T } | { error: unknown };
      let status: number | undefined;
      let requestId: string | undefined;
      try {
        const response = await this.options.transport.send({
          operation: spec.operation,
          method: spec.method,
          url: spec.url,
          headers: this.headers(encoded.contentType, token),
          body: encoded.text,
          signal: spec.signal,
          maxBodyBytes: AnswerBytes[spec.answer ?? 'single'],
        });
        status = response.status;
        requestId = response.requestId;
        if (status >= 200 && status < 300) {
          outcome = { value: spec.parse(response) };
        } else {
          const classify = spec.classify ?? defaultClassify;
          outcome = { error: classify(response, spec.operation) };
        }
      } catch (error) {
        if (spec.signal?.aborted) throw error;
        outcome = { error };
      }
      const elapsedMs = performance.now() - started;
      const observer = this.options.observer;
      if (observer?.onCall !== undefined) {
        const failure = 'error' in outcome ? describeFailure(outcome.error) : undefined;
        safelyNotify(() =>
          observer.onCall?.({
            operation: spec.operation,
            method: spec.method,
            status: status ?? null,
            durationMs: elapsedMs,
            attempt,
            ...(failure === undefined ? {} : { failureKind: String(failure['kind']) }),
          }),
        );
      }

      // The records are built only when their level is written: this runs for every request.
      const { logger } = this.options;
      if (logger.isLevelEnabled('info')) {
        logger.info(
          {
            method: spec.method,
            route: spec.route,
            operationId: spec.operation,
            status: status ?? null,
            ms: Math.round(elapsedMs),
            attempt,
            ...('error' in outcome ? { failure: describeFailure(outcome.error) } : {}),
          },
          'platform call',
        );
      }
      if (logger.isLevelEnabled('debug')) {
        logger.debug(
          { operationId: spec.operation, url: redactUrl(spec.url), requestId, attempt },
          'platform call details',
        );
      }

      if ('value' in outcome) return outcome.value;
      const error = outcome.error;

      if (error instanceof AuthenticationError && token !== undefined && !replayedAfter401) {
        // Exactly one replay with a fresh token; it does not use up a retry attempt.
        replayedAfter401 = true;
        spec.authorization?.rejected(token);
        attempt--;
        continue;
      }
      if (isPlatformError(error) && error.kind === 'rate_limited') this.options.gate.rateLimited();
      if (attempt >= this.options.attempts || !isSafeToRepeat(error, spec.idempotent)) throw error;

      const delayMs = jitteredBackoff(
        attempt,
        this.options.backoff.baseDelayMs,
        this.options.backoff.maxDelayMs,
      );
      this.options.logger.debug(
        { operationId: spec.operation, attempt, delayMs },
        'retrying platform call',
      );
      await sleep(delayMs, undefined, { signal: spec.signal });
    }
  }

  private headers(contentType: string | undefined, token: Secret | undefined) {
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': this.options.userAgent,
    };
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (token !== undefined) headers['authorization'] = `Bearer ${token.reveal()}`;
    return headers;
  }
}

function defaultClassify(response: IncomingResponse, operation: string): PlatformError {
  return errorFromResponse({
    operation,
    status: response.status,
    body: response.body,
    requestId: response.requestId,
  });
}

function encodeBody(body: RequestBody | undefined): {
  text: string | undefined;
  contentType: string | undefined;
} {
  if (body === undefined) return { text: undefined, contentType: undefined };
  if ('json' in body) return { text: JSON.stringify(body.json), contentType: 'application/json' };
  return {
    text: new URLSearchParams(body.form).toString(),
    contentType: 'application/x-www-form-urlencoded',
  };
}

/** What a log line may say about a failure: its class and code, never a body. */
function describeFailure(error: unknown): Record<string, unknown> {
  if (isPlatformError(error)) return { kind: error.kind, code: error.code ?? null };
  return { kind: 'unexpected', name: error instanceof Error ? error.name : typeof error };
}
