import { describe, expect, it } from 'vitest';
import { CronSchedule } from '../../../src/definitions/schedule/cron-schedule.js';
import { parseSkipDays, SkipDays } from '../../../src/definitions/schedule/skip-days.js';

describe('SkipDays: days a schedule does not fire on, in its time zone', () => {
  it('reads a fire by its local date on the day Berlin springs forward, not by its UTC date', () => {
    // 2026-03-29: clocks in Berlin go from 02:00 CET to 03:00 CEST.
    const days = new SkipDays([{ name: 'dst-day', days: ['2026-03-29'] }], 'Europe/Berlin');
    // 00:30 CET on the 29th is 23:30 UTC on the 28th: skipped (its local date is the 29th).
    expect(days.match(new Date('2026-03-28T23:30:00Z'))).toEqual({
      calendar: 'dst-day',
      localDate: '2026-03-29',
      days: '2026-03-29',
    });
    // 00:30 CEST on the 30th is 22:30 UTC on the 29th: it runs (its local date is the 30th).
    expect(days.match(new Date('2026-03-29T22:30:00Z'))).toBeUndefined();
    // 23:30 CET on the 28th is 22:30 UTC on the 28th: it runs.
    expect(days.match(new Date('2026-03-28T22:30:00Z'))).toBeUndefined();

    // Through the schedule: a 02:30 fire (inside the gap, so at 03:30 CEST) and a 00:30 fire.
    const schedule = CronSchedule.create('30 0,2 * * *', 'Europe/Berlin');
    const fires = schedule.firesBetween(
      new Date('2026-03-27T23:00:00Z'),
      new Date('2026-03-30T23:00:00Z'),
    );
    const kept = fires.filter((fire) => days.match(fire) === undefined).map((f) => f.toISOString());
    const removed = fires.filter((fire) => days.match(fire) !== undefined);
    expect(removed.map((fire) => fire.toISOString())).toEqual([
      '2026-03-28T23:30:00.000Z', // 00:30 CET on the 29th
      '2026-03-29T01:30:00.000Z', // 02:30 on the 29th, which does not exist: 03:30 CEST
    ]);
    expect(kept).toEqual([
      '2026-03-27T23:30:00.000Z', // 00:30 CET on the 28th
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T22:30:00.000Z', // 00:30 CEST on the 30th
      '2026-03-30T00:30:00.000Z',
      '2026-03-30T22:30:00.000Z',
    ]);
  });

  it('removes the repeated hour once when clocks go back, and a range across the change', () => {
    // 2026-10-25: Berlin goes back from 03:00 CEST to 02:00 CET; 02:30 fires once (CEST).
    const days = new SkipDays([{ days: ['2026-10-24..2026-10-25'] }], 'Europe/Berlin');
    const fires = CronSchedule.create('30 2 * * *', 'Europe/Berlin').firesBetween(
      new Date('2026-10-22T00:00:00Z'),
      new Date('2026-10-27T00:00:00Z'),
    );
    expect(
      fires.filter((fire) => days.match(fire) !== undefined).map((f) => f.toISOString()),
    ).toEqual(['2026-10-24T00:30:00.000Z', '2026-10-25T00:30:00.000Z']);
    expect(days.match(new Date('2026-10-25T00:30:00Z'))?.days).toBe('2026-10-24..2026-10-25');
  });

  it('says what is wrong with a day or a range', () => {
    expect(parseSkipDays('2026-02-30')).toBe('2026-02-30 is not a day of the calendar');
    expect(parseSkipDays('2027-01-04..2026-12-20')).toBe(
      'ends (2026-12-20) before it starts (2027-01-04)',
    );
    expect(parseSkipDays('26-12-25')).toMatch(/is not a date written YYYY-MM-DD/);
    expect(parseSkipDays('2026-12-20..2026-12-21..2026-12-22')).toMatch(/more than one "\.\."/);
    expect(parseSkipDays('2026-12-20..2027-01-04')).toMatchObject({
      from: '2026-12-20',
      to: '2027-01-04',
    });
  });
});
