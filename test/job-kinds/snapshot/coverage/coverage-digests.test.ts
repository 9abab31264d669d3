import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../../../../src/config/settings-schema.js';
import type { JobDefinition } from '../../../../src/definitions/job-definition.js';
import { jobDefinitionSchema } from '../../../../src/definitions/job-definition.js';
import {
  coverageReport,
  snapshotDefinitions,
  type CoverageReport,
} from '../../../../src/job-kinds/snapshot/coverage/coverage-report.js';
import type { CoverageDigest } from '../../../../src/job-kinds/snapshot/coverage/coverage-digest.js';
import { CoverageDigests } from '../../../../src/job-kinds/snapshot/coverage/coverage-digests.js';
import { notificationProducerOn } from '../../../../src/queue/notifications/open-notification-producer.js';
import { startNotificationService } from '../../../../src/job-kinds/notify/notification-service.js';
import { Shutdown } from '../../../../src/shared/shutdown.js';
import { startProcessorHarness, type ProcessorHarness } from '../../processor-harness.js';
import { eventually } from '../../../testkit/eventually.js';
import { WebhookReceiver } from '../../../ops/webhook-receiver.js';

const PATH = '/hooks/digest';

/**
 * The morning digest after a night against the simulator (its failures, its Disconnected
 * cluster): two replicas checking at once queue one digest, which the notification service
 * posts once, with the coverage's counts and its failing workloads by streak; the next day
 * brings a second message.
 */
describe('the morning coverage digest', () => {
  let harness: ProcessorHarness;
  let receiver: WebhookReceiver;
  let definition: JobDefinition;
  let settings: Settings;
  let shutdown: Shutdown;

  beforeAll(async () => {
    harness = await startProcessorHarness({
      label: 'digest',
      sim: { seed: 28, timeScale: 3000, jobs: { failureRate: 0.4, cancelRate: 0.1 } },
    });
    receiver = await WebhookReceiver.start();
    shutdown = new Shutdown({ logger: harness.logs.logger });
    definition = jobDefinitionSchema.parse({
      id: 'nightly',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *' },
      targets: { types: ['VSPHERE_VM', 'MSSQL_DATABASE'] },
      retention: { slaDomainName: 'Gold' },
      maxWait: '1h',
      notify: { webhook: { url: receiver.url(PATH), allowInternalAddress: true, on: 'always' } },
    });
    settings = {
      ...harness.settings,
      coverage: {
        ...harness.settings.coverage,
        digest: { enabled: true, at: '07:30', timezone: 'Europe/Berlin', maxListed: 3 },
      },
    };
    await harness.startWorker('snapshot');
    await harness.waitForRun(await harness.fire(definition), undefined, 60_000);
    await startNotificationService({
      settings,
      definitions: [definition],
      logger: harness.logs.logger,
      shutdown,
      userAgent: 'paw/test',
      outcomes: harness.outcomes,
    });
  }, 120_000);
  afterAll(async () => {
    await shutdown.run('test over');
    await receiver?.stop();
    await harness?.close();
  });

  const replica = (): CoverageDigests =>
    new CoverageDigests({
      settings,
      redis: harness.redis,
      producer: notificationProducerOn(harness.redis, {
        settings,
        logger: harness.logs.logger,
        shutdown,
      }),
      definitions: () => [definition],
      coverage: (definitions, now) =>
        coverageReport(definitions, harness.platform, harness.outcomes.coverage, { now }),
      logger: harness.logs.logger,
      shutdown,
    });

  it('sends one message per definition and day, however many replicas check', async () => {
    // 07:29 in Berlin (06:29 UTC in winter): not yet.
    expect(await replica().sendDue(Date.parse('2026-01-12T06:29:00Z'))).toBe(0);
    const at = Date.parse('2026-01-12T06:31:00Z');
    const sent = await Promise.all([replica().sendDue(at), replica().sendDue(at)]);
    expect(sent.sort()).toEqual([0, 1]);
    const first = await eventually('the first digest', () =>
      receiver.bodies(PATH).length === 1 ? (receiver.bodies(PATH)[0] as CoverageDigest) : undefined,
    );
    // A replica that checks again later that day adds nothing.
    expect(await replica().sendDue(Date.parse('2026-01-12T15:00:00Z'))).toBe(0);

    const report: CoverageReport = await coverageReport(
      snapshotDefinitions([definition]),
      harness.platform,
      harness.outcomes.coverage,
      { now: new Date(at) },
    );
    const coverage = report.definitions[0];
    expect(first).toMatchObject({
      source: 'paw',
      event: 'coverage.digest',
      definitionId: 'nightly',
      day: '2026-01-12',
      deliveryId: 'paw-digest-nightly-2026-01-12',
      counts: coverage?.counts,
    });
    const notable = (coverage?.workloads ?? []).filter(
      (row) => row.state === 'failing' || row.state === 'stale',
    );
    expect(notable.length).toBeGreaterThan(0);
    expect(first.workloads.length).toBe(Math.min(3, notable.length));
    expect(first.workloadsNotListed).toBe(Math.max(0, notable.length - 3));
    for (const row of first.workloads) {
      const source = notable.find((n) => n.workloadId === row.workloadId);
      expect(row).toMatchObject({ state: source?.state, failureStreak: source?.failureStreak });
    }

    // The next day: a second message.
    expect(await replica().sendDue(Date.parse('2026-01-13T07:00:00Z'))).toBe(1);
    await eventually('the second digest', () =>
      receiver.bodies(PATH).length === 2 ? true : undefined,
    );
    expect((receiver.bodies(PATH)[1] as CoverageDigest).day).toBe('2026-01-13');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.bodies(PATH)).toHaveLength(2);
  }, 60_000);
});
