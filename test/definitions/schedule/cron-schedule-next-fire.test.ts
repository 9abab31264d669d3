import { describe, expect, it } from 'vitest';
import { CronSchedule } from '../../../src/definitions/schedule/cron-schedule.js';

/**
 * `nextFire` finds the first fire by bisecting each day's fire times instead of listing them (a
 * schedule that fires every second has 86,400 a day, and it runs whenever a definition is
 * validated): it must stay exactly the first of `firesAfter`, DST days included.
 */
describe('CronSchedule.nextFire', () => {
  const at = (text: string): Date => new Date(text);

  it.each([
    // Every second, across Berlin's fall back: 02:00-02:59:59 CET repeat and do not fire again.
    ['* * * * * *', 'Europe/Berlin', '2025-10-26T00:59:59.500Z', '2025-10-26T02:00:00.000Z'],
    // Every second, across Berlin's spring forward: 02:00 CET does not exist, 03:00 CEST fires.
    ['* * * * * *', 'Europe/Berlin', '2025-03-30T00:59:59.500Z', '2025-03-30T01:00:00.000Z'],
    ['30 2 * * *', 'Europe/Berlin', '2025-03-29T23:00:00.000Z', '2025-03-30T01:30:00.000Z'],
    // The repeated 02:30 fired at its first occurrence: the next is the following day's.
    ['30 2 * * *', 'Europe/Berlin', '2025-10-26T00:30:00.000Z', '2025-10-27T01:30:00.000Z'],
    // Lord Howe moves by half an hour.
    ['0 30 2 * * *', 'Australia/Lord_Howe', '2025-10-04T12:00:00.000Z', '2025-10-04T15:30:00.000Z'],
    ['*/5 * * * * *', 'UTC', '2025-01-01T23:59:58.000Z', '2025-01-02T00:00:00.000Z'],
    ['0 0 0 29 2 *', 'UTC', '2025-03-01T00:00:00.000Z', '2028-02-29T00:00:00.000Z'],
  ])('%s in %s after %s is %s', (expression, zone, after, expected) => {
    expect(CronSchedule.create(expression, zone).nextFire(at(after))?.toISOString()).toBe(expected);
  });

  it('is the first of firesAfter, every four hours and a bit around two DST seasons', () => {
    const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe'];
    const expressions = [
      '* * * * * *',
      '30 2 * * *',
      '*/7 1-3 * * *',
      '59 23 * * *',
      '0 1 * * 1#2',
    ];
    const spans = [
      [Date.UTC(2026, 2, 7), Date.UTC(2026, 3, 6)],
      [Date.UTC(2026, 9, 3), Date.UTC(2026, 10, 2)],
    ] as const;
    let compared = 0;
    for (const zone of zones) {
      for (const expression of expressions) {
        const schedule = CronSchedule.create(expression, zone);
        for (const [from, to] of spans) {
          // Not a whole number of hours, so the instants fall at every minute and second.
          for (let ms = from; ms < to; ms += 4 * 3_600_000 + 61_001) {
            const after = new Date(ms);
            const first = schedule.firesAfter(after).next();
            expect(schedule.nextFire(after)?.toISOString(), `${expression} ${zone} ${ms}`).toBe(
              first.done === true ? undefined : first.value.toISOString(),
            );
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(3_000);
  });

  it('hands every caller the one compiled schedule of an expression and zone', () => {
    expect(CronSchedule.create('* * * * * *', 'Europe/Berlin')).toBe(
      CronSchedule.create('* * * * * *', 'Europe/Berlin'),
    );
    expect(CronSchedule.create('* * * * * *', 'Europe/Berlin')).not.toBe(
      CronSchedule.create('* * * * * *', 'UTC'),
    );
  });
});
