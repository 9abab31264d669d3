import { describe, expect, it } from 'vitest';
import { CronSchedule } from '../../src/definitions/schedule/cron-schedule.js';
import { planDueFires } from '../../src/scheduler/fire-plan.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;

describe('planDueFires (catch-up after downtime, controlled clock)', () => {
  it('enqueues fires within the catch-up window once each and records older ones as missed', () => {
    // Hourly at :00 Berlin; the scheduler was down from 2025-03-29 21:30 UTC and comes back at
    // 2025-03-30 03:10 UTC, across the spring-forward change. catchUp 2h.
    const schedule = CronSchedule.create('0 * * * *', 'Europe/Berlin');
    const lastHandled = new Date('2025-03-29T21:00:00Z');
    const now = new Date('2025-03-30T03:10:00Z');
    const due = schedule.firesBetween(lastHandled, now);
    // 22:00Z .. 03:00Z: six instants (the skipped local 02:00 is 01:00Z, which 03:00 CEST is too).
    expect(due.map((fire) => fire.toISOString())).toEqual([
      '2025-03-29T22:00:00.000Z',
      '2025-03-29T23:00:00.000Z',
      '2025-03-30T00:00:00.000Z',
      '2025-03-30T01:00:00.000Z',
      '2025-03-30T02:00:00.000Z',
      '2025-03-30T03:00:00.000Z',
    ]);
    const plan = planDueFires(due, now, {
      catchUpMs: 2 * HOUR,
      misfireGraceMs: MINUTE,
      maxMissedRecorded: 100,
    });
    expect(
      plan.fires.map((fire) => [fire.fireTime.toISOString(), fire.action, fire.trigger]),
    ).toEqual([
      ['2025-03-29T22:00:00.000Z', 'record-missed', 'catch-up'],
      ['2025-03-29T23:00:00.000Z', 'record-missed', 'catch-up'],
      ['2025-03-30T00:00:00.000Z', 'record-missed', 'catch-up'],
      ['2025-03-30T01:00:00.000Z', 'record-missed', 'catch-up'], // 2h10m late
      ['2025-03-30T02:00:00.000Z', 'enqueue', 'catch-up'], // 1h10m late
      ['2025-03-30T03:00:00.000Z', 'enqueue', 'catch-up'], // 10m late
    ]);
    expect(plan.unrecordedMissed).toBe(0);
  });

  it('treats a fire handled within the misfire grace as on time', () => {
    const fire = new Date('2025-01-01T01:00:00Z');
    const plan = planDueFires([fire], new Date(fire.getTime() + 30_000), {
      catchUpMs: 0,
      misfireGraceMs: MINUTE,
      maxMissedRecorded: 100,
    });
    expect(plan.fires).toEqual([
      { fireTime: fire, action: 'enqueue', trigger: 'cron', lateByMs: 30_000 },
    ]);
    const late = planDueFires([fire], new Date(fire.getTime() + 2 * MINUTE), {
      catchUpMs: 0,
      misfireGraceMs: MINUTE,
      maxMissedRecorded: 100,
    });
    expect(late.fires[0]?.action).toBe('record-missed');
  });

  it('records only the most recent missed fires when there are very many, counting the rest', () => {
    const schedule = CronSchedule.create('* * * * * *', 'UTC');
    const now = new Date('2025-01-02T00:00:00Z');
    const fires = schedule.firesAfter(new Date(now.getTime() - 86_400_000), now); // 86,400 fires
    const plan = planDueFires(fires, now, {
      catchUpMs: 10_000,
      misfireGraceMs: 1_000,
      maxMissedRecorded: 5,
    });
    const missed = plan.fires.filter((fire) => fire.action === 'record-missed');
    const enqueued = plan.fires.filter((fire) => fire.action === 'enqueue');
    expect(enqueued).toHaveLength(11); // the last 10 s and now itself
    expect(missed.map((fire) => fire.lateByMs)).toEqual([15_000, 14_000, 13_000, 12_000, 11_000]);
    expect(plan.unrecordedMissed).toBe(86_400 - 11 - 5);
  });
});
