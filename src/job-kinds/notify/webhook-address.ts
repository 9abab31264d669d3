import type { WebhookSettings } from '../../definitions/notify-schema.js';

/**
 * A webhook URL as paw may show it: scheme, host and port only. The path, query, fragment and
 * any user info are where tokens live (`https://hooks.slack.com/services/T0/B0/<token>`), so they
 * never reach a log line, an error message, Redis or a page.
 */
export function redactWebhookUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const hidden =
      parsed.pathname.length > 1 ||
      parsed.search !== '' ||
      parsed.hash !== '' ||
      parsed.username !== '' ||
      parsed.password !== '';
    return `${parsed.origin}${hidden ? '/…' : '/'}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/** Where a definition's webhook points, for pages and logs: the redacted URL or its file. */
export function describeWebhook(webhook: WebhookSettings): string {
  if (webhook.url !== undefined) return redactWebhookUrl(webhook.url);
  return `the URL in ${webhook.urlFile ?? '(no file)'}`;
}
