import { z } from 'zod';
import { internalAddressKind } from '../shared/internal-address.js';
import { onlyWithoutProblems } from './refinement-options.js';

/** Run statuses that count as a failure for `notify.webhook.on: failure`. */
export const FAILURE_STATUSES = ['failed', 'timed-out', 'canceled', 'missed'] as const;

/**
 * Where a run's summary is posted when it ends. The URL may hold a token (Slack's incoming
 * webhooks do), so it is kept out of everything paw writes: job data, Redis, logs, error
 * messages and command output show at most its host. It lives in the definition file, or in a
 * file of its own (`urlFile`, e.g. a Docker or Kubernetes secret) that is read at each delivery.
 */
const webhookSchema = z
  .strictObject({
    /** `https://...`; plain `http://` only to a loopback address unless allowed in the settings. */
    url: z
      .string({ error: 'expected a URL such as "https://hooks.example.com/..."' })
      .trim()
      .refine((text) => isHttpUrl(text), {
        // Never echo the value: it may hold a token.
        error: 'is not an http(s) URL (the value is not shown: it may hold a token)',
        params: { fix: 'write the full address, e.g. "https://hooks.slack.com/services/..."' },
      })
      .optional(),
    /** A file holding the URL (relative to the definition's file); read at each delivery. */
    urlFile: z.string().trim().min(1).optional(),
    /** `failure` (default): runs that end failed, timed out, canceled or missed. `always`: every run. */
    on: z.enum(['failure', 'always']).default('failure'),
    /** `json` (default): paw's run summary. `slack`: `{ "text": ... }` for Slack-compatible hooks. */
    format: z.enum(['json', 'slack']).default('json'),
    /**
     * Whether the webhook may be on a loopback, private or link-local address (an internal
     * relay). Refused by default, at validation and at delivery (after DNS), so that a mistyped
     * or planted address cannot post run summaries into the internal network.
     */
    allowInternalAddress: z.boolean().default(false),
  })
  .superRefine((webhook, context) => {
    if ((webhook.url === undefined) === (webhook.urlFile === undefined)) {
      context.addIssue({
        code: 'custom',
        message:
          webhook.url === undefined ? 'names no URL' : 'names the URL twice (url and urlFile)',
        params: { fix: 'give either url: "https://..." or urlFile: /path/to/a/file/holding/it' },
      });
    }
    const host = webhook.url === undefined ? undefined : new URL(webhook.url).hostname;
    const kind = host === undefined ? undefined : internalAddressKind(host);
    if (host !== undefined && kind !== undefined && !webhook.allowInternalAddress) {
      context.addIssue({
        code: 'custom',
        path: ['url'],
        message: `points at ${host}, a ${kind} address, where webhooks are refused by default`,
        params: {
          fix: "use the webhook's public address, or set allowInternalAddress: true beside url if this internal address is meant",
        },
      });
    }
  }, onlyWithoutProblems);

/** A definition's `notify` key: optional, one webhook. */
export const notifySchema = z.strictObject({ webhook: webhookSchema });

export type NotifySettings = z.output<typeof notifySchema>;
export type WebhookSettings = NotifySettings['webhook'];

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * The definition without its `notify` key: what travels in job data (BullMQ stores it in
 * clear, and the URL may hold a token). Notifications are sent by processes that read the
 * definitions themselves.
 */
export function withoutNotify<T extends { readonly notify?: NotifySettings | undefined }>(
  definition: T,
): Omit<T, 'notify'> {
  const { notify: _notify, ...rest } = definition;
  return rest;
}
