import type { Redis } from 'ioredis';
import type { Settings } from '../../config/settings-schema.js';
import { DefinitionSet } from '../../definitions/definition-set.js';
import type { JobDefinition } from '../../definitions/job-definition.js';
import { FAILURE_STATUSES } from '../../definitions/notify-schema.js';
import type { Logger } from '../../shared/logger.js';
import type { Outcomes } from '../../outcomes/outcomes.js';
import type { ItemRecord } from '../../outcomes/outcome-records.js';
import { isActiveStatus } from '../../outcomes/outcome-status.js';
import type { DigestJobData } from '../../queue/notifications/notification-queue.js';
import { digestSlackMessage, type CoverageDigest } from '../snapshot/coverage/coverage-digest.js';
import { buildRunSummary, slackMessage } from './run-summary.js';
import { describeWebhook } from './webhook-address.js';
import type { WebhookSender } from './webhook-sender.js';

/** How a notification job ended (counted by NotificationMetrics, src/ops/metrics/). */
export type NotificationResult =
  'sent' | 'failed' | 'gave-up' | 'not-configured' | 'not-needed' | 'already-sent';

export interface RunNotifierOptions {
  /** For the marker of each run notified. */
  readonly redis: Redis;
  /** The runs and items to report. */
  readonly outcomes: Outcomes;
  readonly settings: Settings;
  /** The definitions of this process: the only place a webhook URL is known. */
  readonly definitions: DefinitionSet | readonly JobDefinition[];
  readonly sender: WebhookSender;
  readonly logger: Logger;
}

/** The run is not finished yet: try again later (its end will be reported again too). */
class RunStillActiveError extends Error {
  override readonly name = 'RunStillActiveError';
}

const FAILURE_SET = new Set<string>(FAILURE_STATUSES);

/**
 * Sends the notification of one run: looks up the run's definition among this process's own
 * definitions (job data never carries the URL), decides from `notify.webhook.on` and the run's
 * status whether anything is due, lists the problem items, and posts the summary. A run is
 * notified once: a marker in Redis (`<prefix>:notifications:sent:<runId>`, kept for the outcome
 * retention) is set after a delivery and checked before one, so a repeated job sends nothing.
 */
export class RunNotifier {
  private readonly definitions: DefinitionSet;

  constructor(private readonly options: RunNotifierOptions) {
    this.definitions = DefinitionSet.from(options.definitions);
  }

  /**
   * Handles the notification of `runId`. Throws a `WebhookDeliveryError` (see webhook-sender.ts)
   * when the delivery failed, to be retried unless it is permanent.
   */
  async notify(runId: string): Promise<NotificationResult> {
    const { logger, settings } = this.options;
    const run = await this.options.outcomes.runs.get(runId);
    if (run === undefined) {
      logger.debug({ runId }, 'notification of a run that no longer exists: nothing to send');
      return 'not-needed';
    }
    const webhook = this.definitions.lastKnown(run.definitionId)?.notify?.webhook;
    if (webhook === undefined) return 'not-configured';
    if (isActiveStatus(run.status)) {
      throw new RunStillActiveError(`run ${runId} has not ended yet (${run.status})`);
    }
    if (webhook.on === 'failure' && !FAILURE_SET.has(run.status)) return 'not-needed';

    const sentKey = `${settings.redis.prefix}:notifications:sent:${runId}`;
    if ((await this.options.redis.exists(sentKey)) === 1) return 'already-sent';

    const failures: ItemRecord[] = [];
    let failureTotal = 0;
    for await (const item of this.options.outcomes.queries.items({
      runId,
      statuses: ['failed', 'timed-out', 'canceled'],
    })) {
      failureTotal++;
      if (failures.length < settings.notifications.maxItemsListed) failures.push(item);
    }
    const summary = buildRunSummary(run, failures, failureTotal);
    const body = webhook.format === 'slack' ? slackMessage(summary) : summary;

    const status = await this.deliver(webhook, body, summary.deliveryId, sentKey);
    logger.info(
      { runId, runStatus: run.status, webhook: describeWebhook(webhook), status },
      'run summary sent',
    );
    return 'sent';
  }

  /**
   * Sends a definition's morning digest (built where coverage is computed:
   * src/job-kinds/snapshot/coverage/coverage-digests.ts), once: marked like a run summary, under
   * `<prefix>:notifications:sent:digest:<definitionId>:<day>`.
   */
  async sendDigest(data: DigestJobData): Promise<NotificationResult> {
    const webhook = this.definitions.lastKnown(data.definitionId)?.notify?.webhook;
    if (webhook === undefined) return 'not-configured';
    const sentKey = `${this.options.settings.redis.prefix}:notifications:sent:digest:${data.definitionId}:${data.day}`;
    if ((await this.options.redis.exists(sentKey)) === 1) return 'already-sent';
    const digest = data.body as unknown as CoverageDigest;
    const body = webhook.format === 'slack' ? digestSlackMessage(digest) : digest;
    const status = await this.deliver(webhook, body, digest.deliveryId, sentKey);
    this.options.logger.info(
      { definitionId: data.definitionId, day: data.day, webhook: describeWebhook(webhook), status },
      'coverage digest sent',
    );
    return 'sent';
  }

  /** Posts `body`, then marks it sent for the outcome retention. */
  private async deliver(
    webhook: NonNullable<NonNullable<JobDefinition['notify']>['webhook']>,
    body: unknown,
    deliveryId: string,
    sentKey: string,
  ): Promise<number> {
    const target = await this.options.sender.resolveUrl(webhook);
    const status = await this.options.sender.post(target, body, { 'x-paw-delivery': deliveryId });
    await this.options.redis.set(
      sentKey,
      String(Date.now()),
      'EX',
      this.options.settings.outcomes.retentionDays * 86_400,
    );
    return status;
  }
}
