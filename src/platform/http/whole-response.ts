import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';

export interface WholeRequest {
  readonly url: URL;
  readonly method: Dispatcher.HttpMethod;
  readonly headers: Record<string, string>;
  readonly body?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * The most bytes a successful (2xx) body may have: past it the request is aborted with an
   * {@link AnswerTooLargeError}, before more is read. Any other answer's body is kept only up to
   * {@link FAILURE_BODY_BYTES} (its message is all paw reads from it) and the rest dropped.
   */
  readonly maxBodyBytes?: number | undefined;
}

/** What is kept of a failure's body: far more than the message paw shows from it. */
const FAILURE_BODY_BYTES = 64 * 1024;

/** A successful answer's body went past the request's `maxBodyBytes`. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  constructor(
    readonly status: number,
    readonly maxBytes: number,
  ) {
    super(`the answer is larger than ${maxBytes} bytes`);
  }
}

export interface WholeResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body as UTF-8 text, without a byte-order mark ('' when there is none). */
  readonly body: string;
}

/**
 * Sends one request through `dispatcher` and resolves with the whole response once its body
 * has arrived. undici's `request` gives the body as a stream and wraps each request in an
 * AsyncResource; paw reads every body whole, so this handler on undici's own dispatch interface
 * collects the chunks instead. One request at a time on loopback, paw's whole `readSnapshotJob`
 * cost 199–255 µs of CPU a call with it and 246–286 µs with `request` (BENCHMARKS.md). The
 * dispatcher's options (timeouts, the largest response) apply as they do to `request`; its
 * errors reject unchanged. `maxBodyBytes` bounds one request's successful body further.
 */
export function sendForWholeResponse(
  dispatcher: Dispatcher,
  request: WholeRequest,
): Promise<WholeResponse> {
  return new Promise((resolve, reject) => {
    const { signal } = request;
    let controller: Dispatcher.DispatchController | undefined;
    let abortedWith: Error | undefined;
    const onAbort = (): void => {
      abortedWith = (signal?.reason as Error | undefined) ?? new Error('the request was aborted');
      controller?.abort(abortedWith);
    };
    if (signal?.aborted === true) {
      reject(signal.reason as Error);
      return;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (): void => signal?.removeEventListener('abort', onAbort);
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    let received = 0;
    const maxBodyBytes = request.maxBodyBytes ?? Infinity;
    const succeeded = (): boolean => status >= 200 && status < 300;
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(started) {
        controller = started;
        if (abortedWith !== undefined) started.abort(abortedWith);
      },
      onResponseStart(started, statusCode, responseHeaders) {
        status = statusCode;
        headers = responseHeaders;
        const announced = Number(responseHeaders['content-length']);
        if (succeeded() && announced > maxBodyBytes) {
          started.abort(new AnswerTooLargeError(status, maxBodyBytes));
        }
      },
      onResponseData(started, chunk) {
        received += chunk.length;
        if (succeeded()) {
          if (received > maxBodyBytes) started.abort(new AnswerTooLargeError(status, maxBodyBytes));
          else chunks.push(chunk);
        } else if (received - chunk.length < FAILURE_BODY_BYTES) {
          chunks.push(chunk.subarray(0, FAILURE_BODY_BYTES - (received - chunk.length)));
        }
      },
      onResponseEnd() {
        settle();
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, headers, body: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text });
      },
      onResponseError(_controller, error) {
        settle();
        reject(error);
      },
    };
    try {
      dispatcher.dispatch(
        {
          origin: request.url.origin,
          path: `${request.url.pathname}${request.url.search}`,
          method: request.method,
          headers: request.headers,
          body: request.body ?? null,
        },
        handler,
      );
    } catch (error) {
      settle();
      reject(error instanceof Error ? error : new Error(String(error)));
    }
  });
}
