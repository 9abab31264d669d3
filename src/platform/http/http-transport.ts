import { Agent } from 'undici';
import type { HttpMethod } from '../defaults/default-routes.js';
import { describeSize } from '../../shared/describe-size.js';
import { errorFromTransport, oversizedResponse } from './error-factory.js';
import {
  AnswerTooLargeError,
  sendForWholeResponse,
  type WholeRequest,
  type WholeResponse,
} from './whole-response.js';

export interface TransportTimeouts {
  readonly connectMs: number;
  readonly headersMs: number;
  readonly bodyMs: number;
  readonly keepAliveMs: number;
}

export interface OutgoingRequest extends WholeRequest {
  readonly operation: string;
  readonly method: HttpMethod;
}

export interface IncomingResponse extends WholeResponse {
  /** The platform's request id header, when present. */
  readonly requestId: string | undefined;
}

/**
 * Bodies larger than this are refused whatever the request (a failure's body too): each request
 * bounds its successful answer much lower (`maxBodyBytes`, by endpoint: answer-limits.ts).
 */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * One undici agent with explicit timeouts and keep-alive, shared by every call of a client.
 * It sends exactly what it is given, reads the whole body, and turns transport failures into
 * typed errors; it knows nothing of tokens, retries or response shapes.
 */
export class HttpTransport {
  private readonly agent: Agent;

  constructor(timeouts: TransportTimeouts) {
    this.agent = new Agent({
      connect: { timeout: timeouts.connectMs },
      headersTimeout: timeouts.headersMs,
      bodyTimeout: timeouts.bodyMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // A server's Keep-Alive hint may shorten this, never lengthen it past our own setting.
      keepAliveMaxTimeout: timeouts.keepAliveMs,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
  }

  async send(outgoing: OutgoingRequest): Promise<IncomingResponse> {
    try {
      const response = await sendForWholeResponse(this.agent, outgoing);
      const requestId = response.headers['x-request-id'];
      return { ...response, requestId: typeof requestId === 'string' ? requestId : undefined };
    } catch (error) {
      // The caller's own abort is not a platform failure: pass its reason through untouched.
      if (outgoing.signal?.aborted) throw outgoing.signal.reason;
      if (error instanceof AnswerTooLargeError) {
        throw oversizedResponse({
          operation: outgoing.operation,
          status: error.status,
          problem: `the answer is larger than ${describeSize(error.maxBytes)}, the most paw accepts for ${outgoing.operation}`,
        });
      }
      throw errorFromTransport({ operation: outgoing.operation, error });
    }
  }

  /** Closes idle connections and waits for in-flight requests. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Drops every connection at once, in-flight requests included (shutdown after the grace period). */
  async destroy(): Promise<void> {
    await this.agent.destroy();
  }
}
