import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import type { WebhookSettings } from '../../definitions/notify-schema.js';
import { readCappedFile } from '../../shared/read-capped-file.js';
import { UsageError } from '../../shared/usage-error.js';
import { internalAddressKind } from '../../shared/internal-address.js';
import { redactWebhookUrl } from './webhook-address.js';

/** A delivery that did not work. Its message names the host only, never the path or query. */
export class WebhookDeliveryError extends Error {
  override readonly name = 'WebhookDeliveryError';
  constructor(
    message: string,
    /** True when trying again cannot help (a 4xx, a refused scheme, a malformed URL). */
    readonly permanent: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface WebhookSenderOptions {
  /** Time for the webhook to answer (headers and body). */
  readonly timeoutMs: number;
  /** Allow plain http:// beyond loopback addresses. */
  readonly allowInsecureHttp: boolean;
  readonly userAgent: string;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i;

/** Where a run summary goes: the URL, and whether its definition allows an internal address. */
export interface WebhookTarget {
  readonly url: URL;
  readonly allowInternalAddress: boolean;
}

/**
 * A DNS lookup that fails for loopback, private and link-local answers: the check happens on the
 * address the socket connects to, so a name that resolves (or re-resolves) inward is refused.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error !== null) {
      callback(error, '', 0);
      return;
    }
    const inward = addresses.find((entry) => internalAddressKind(entry.address) !== undefined);
    if (inward !== undefined) {
      const refused = Object.assign(
        new Error(`resolves to a ${internalAddressKind(inward.address)} address`),
        { code: 'EINTERNALADDRESS' },
      );
      callback(refused, '', 0);
      return;
    }
    if (options.all === true) callback(null, addresses);
    else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
  });
};

/**
 * Posts a JSON body to a webhook. Redirects are not followed (a redirect could carry the body
 * elsewhere); a 2xx is success; 408, 429 and 5xx and network failures are worth retrying; any
 * other answer is permanent. No error it throws holds the URL's path, query or user info.
 */
export class WebhookSender {
  /** Connects only to public addresses (see publicOnlyLookup). */
  private readonly publicOnly = new Agent({ connect: { lookup: publicOnlyLookup } });

  constructor(private readonly options: WebhookSenderOptions) {}

  /**
   * The webhook's URL (from the definition, or read from its `urlFile` now), refused when it
   * names an internal address its definition does not allow.
   */
  async resolveUrl(webhook: WebhookSettings): Promise<WebhookTarget> {
    let text = webhook.url;
    if (text === undefined) {
      const file = webhook.urlFile ?? '';
      try {
        text = (
          await readCappedFile(file, { maxBytes: 64 * 1024, what: 'a webhook URL file' })
        ).trim();
      } catch (error) {
        // Over the cap, a FIFO, a folder: permanent, and its message names the file and why.
        if (error instanceof UsageError) throw new WebhookDeliveryError(error.message, true);
        const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        // Transient: a mounted secret may appear, or its permissions be fixed, before the retry.
        throw new WebhookDeliveryError(`cannot read the webhook URL file ${file} (${code})`, false);
      }
    }
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new WebhookDeliveryError(
        `the webhook URL${webhook.urlFile === undefined ? '' : ` in ${webhook.urlFile}`} is not a URL`,
        true,
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      throw new WebhookDeliveryError(`webhook ${redactWebhookUrl(url.href)} is not http(s)`, true);
    }
    if (
      url.protocol === 'http:' &&
      !LOOPBACK.test(url.hostname) &&
      !this.options.allowInsecureHttp
    ) {
      throw new WebhookDeliveryError(
        `webhook ${redactWebhookUrl(url.href)} uses plain http:// (the URL and any token in it ` +
          'would travel in clear): use https, or set notifications.allowInsecureHttp',
        true,
      );
    }
    const kind = internalAddressKind(url.hostname);
    if (kind !== undefined && !webhook.allowInternalAddress) {
      throw new WebhookDeliveryError(
        `webhook ${redactWebhookUrl(url.href)} is a ${kind} address: refused unless its ` +
          'definition sets notify.webhook.allowInternalAddress: true',
        true,
      );
    }
    return { url, allowInternalAddress: webhook.allowInternalAddress };
  }

  /** POSTs `body` as JSON to `url`; throws {@link WebhookDeliveryError} unless it answers 2xx. */
  async post(
    target: WebhookTarget,
    body: unknown,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<number> {
    const { url } = target;
    const shown = redactWebhookUrl(url.href);
    let statusCode: number;
    try {
      const response = await request(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': this.options.userAgent,
          ...headers,
        },
        body: JSON.stringify(body),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs * 2),
        ...(target.allowInternalAddress ? {} : { dispatcher: this.publicOnly }),
      });
      statusCode = response.statusCode;
      await response.body.dump();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'EINTERNALADDRESS') {
        throw new WebhookDeliveryError(
          `webhook ${shown} ${(error as Error).message}: refused unless its definition sets ` +
            'notify.webhook.allowInternalAddress: true',
          true,
        );
      }
      const reason =
        typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
      throw new WebhookDeliveryError(`webhook ${shown} could not be reached (${reason})`, false);
    }
    if (statusCode >= 200 && statusCode < 300) return statusCode;
    const retryable = statusCode === 408 || statusCode === 429 || statusCode >= 500;
    throw new WebhookDeliveryError(
      `webhook ${shown} answered HTTP ${statusCode}` +
        (retryable ? '' : ' (not retried: fix the webhook or the definition)'),
      !retryable,
      statusCode,
    );
  }
}
