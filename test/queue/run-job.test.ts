import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/queue/job-backoff.js';
import { RUN_ID_PATTERN, itemJobId, runIdFor } from '../../src/queue/run-id.js';
import { runJobDataSchema } from '../../src/queue/run-job.js';
import { exampleDefinition } from '../testkit/definitions.js';

describe('run ids', () => {
  it('derive from the definition and the fire time, without ":"', () => {
    const fire = new Date('2025-03-30T01:30:00Z');
    expect(runIdFor('nightly-vms', fire, 'cron')).toBe('nightly-vms@20250330T013000Z');
    // A fire caught up later is the same run as the fire handled on time.
    expect(runIdFor('nightly-vms', fire, 'catch-up')).toBe(runIdFor('nightly-vms', fire, 'cron'));
    const manual = runIdFor('nightly-vms', new Date('2025-03-30T10:15:02.123Z'), 'manual');
    expect(manual).toBe('nightly-vms@20250330T101502.123Z-manual');
    for (const id of [runIdFor('a', fire, 'cron'), manual]) {
      expect(id).not.toContain(':');
      expect(id).toMatch(RUN_ID_PATTERN);
    }
    expect(itemJobId('r@20250101T000000Z', 'MSSQL:::0%')).toBe(
      'r@20250101T000000Z~MSSQL%3A%3A%3A0%25',
    );
  });
});

describe('backoff', () => {
  const settings = { baseMs: 1000, maxMs: 60_000 };

  it('doubles from the base with jitter in the upper half, up to the cap', () => {
    expect(backoffDelay(1, settings, undefined, () => 0)).toBe(500);
    expect(backoffDelay(1, settings, undefined, () => 1)).toBe(1000);
    expect(backoffDelay(3, settings, undefined, () => 0)).toBe(2000);
    expect(backoffDelay(3, settings, undefined, () => 1)).toBe(4000);
    expect(backoffDelay(30, settings, undefined, () => 1)).toBe(60_000);
    for (let attempt = 1; attempt < 12; attempt++) {
      const delay = backoffDelay(attempt, settings);
      const ceiling = Math.min(60_000, 1000 * 2 ** (attempt - 1));
      expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
      expect(delay).toBeLessThanOrEqual(ceiling);
    }
  });

  it('waits at least as long as an error asks (retryAfterMs)', () => {
    const rateLimited = Object.assign(new Error('429'), { retryAfterMs: 30_000 });
    expect(backoffDelay(1, settings, rateLimited, () => 0)).toBe(30_000);
  });
});

describe('run job data', () => {
  const definition = exampleDefinition('rotate-secret');
  const valid = {
    runId: 'rotate@20250601T030000Z',
    definitionId: 'rotate',
    kind: 'rotate-secret',
    fireTime: '2025-06-01T03:00:00.000Z',
    trigger: 'cron',
    enqueuedAt: '2025-06-01T03:00:00.210Z',
    definition,
  };

  it('accepts a run with its definition, which re-validates unchanged', () => {
    expect(runJobDataSchema.parse(valid)).toEqual(valid);
  });

  it('rejects anything that could smuggle a secret, and mismatched or malformed fields', () => {
    expect(runJobDataSchema.safeParse({ ...valid, clientSecret: 'x' }).success).toBe(false);
    expect(
      runJobDataSchema.safeParse({
        ...valid,
        definition: { ...definition, serviceAccount: { clientId: 'client|x', clientSecret: 'x' } },
      }).success,
    ).toBe(false);
    expect(runJobDataSchema.safeParse({ ...valid, definitionId: 'other' }).success).toBe(false);
    expect(runJobDataSchema.safeParse({ ...valid, runId: 'rotate:1' }).success).toBe(false);
    expect(runJobDataSchema.safeParse({ ...valid, trigger: 'whenever' }).success).toBe(false);
  });
});
