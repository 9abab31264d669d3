import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A webhook receiver on 127.0.0.1 for notification tests: records every request and answers
 * with the next status of `statuses` (then 200).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly statuses: number[] = [];
  private server: Server | undefined;
  port = 0;

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        receiver.requests.push({
          method: request.method ?? '',
          path: request.url ?? '',
          headers: request.headers,
          body,
        });
        response.statusCode = receiver.statuses.shift() ?? 200;
        response.end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.server?.listen(0, '127.0.0.1', resolve));
    receiver.port = (receiver.server.address() as AddressInfo).port;
    return receiver;
  }

  /** The URL of `path` on this receiver. */
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next requests get these statuses, in order. */
  answer(...statuses: number[]): void {
    this.statuses.push(...statuses);
  }

  /** The JSON bodies of the requests to `path`. */
  bodies(path: string): unknown[] {
    return this.requests
      .filter((request) => request.path === path)
      .map((request) => JSON.parse(request.body) as unknown);
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
