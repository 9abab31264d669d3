import { describe, expect, it } from 'vitest';
import {
  CronSchedule,
  UnknownTimeZoneError,
} from '../../../src/definitions/schedule/cron-schedule.js';
import { CronSyntaxError } from '../../../src/definitions/schedule/cron-expression.js';

const iso = (dates: readonly Date[]): string[] => dates.map((date) => date.toISOString());
const at = (text: string): Date => new Date(text);

describe('CronSchedule fire times', () => {
  it('fires a daily time once a day in the zone, at the zone offset', () => {
    const schedule = CronSchedule.create('0 1 * * *', 'Europe/Berlin');
    expect(
      iso(schedule.firesBetween(at('2025-01-10T00:00:00Z'), at('2025-01-12T23:59:59Z'))),
    ).toEqual(['2025-01-11T00:00:00.000Z', '2025-01-12T00:00:00.000Z']);
  });

  it('treats the bounds as (after, until]', () => {
    const schedule = CronSchedule.create('*/10 * * * * *', 'UTC');
    expect(
      iso(schedule.firesBetween(at('2025-01-01T00:00:00Z'), at('2025-01-01T00:00:30Z'))),
    ).toEqual(['2025-01-01T00:00:10.000Z', '2025-01-01T00:00:20.000Z', '2025-01-01T00:00:30.000Z']);
    expect(schedule.nextFire(at('2025-01-01T00:00:09.999Z'))?.toISOString()).toBe(
      '2025-01-01T00:00:10.000Z',
    );
  });

  describe('Europe/Berlin spring forward (2025-03-30, 02:00 CET becomes 03:00 CEST)', () => {
    it('fires a skipped 02:30 once, an hour after the change (03:30 CEST)', () => {
      const schedule = CronSchedule.create('30 2 * * *', 'Europe/Berlin');
      expect(
        iso(schedule.firesBetween(at('2025-03-28T12:00:00Z'), at('2025-03-31T12:00:00Z'))),
      ).toEqual([
        '2025-03-29T01:30:00.000Z', // 02:30 CET
        '2025-03-30T01:30:00.000Z', // 02:30 does not exist: 03:30 CEST
        '2025-03-31T00:30:00.000Z', // 02:30 CEST
      ]);
    });

    it('fires each instant once when skipped times land on existing ones', () => {
      const schedule = CronSchedule.create('*/30 1-3 * * *', 'Europe/Berlin');
      // 02:00 and 02:30 move to 03:00 and 03:30 CEST, which fire anyway: once each.
      expect(
        iso(schedule.firesBetween(at('2025-03-29T22:00:00Z'), at('2025-03-30T06:00:00Z'))),
      ).toEqual([
        '2025-03-30T00:00:00.000Z',
        '2025-03-30T00:30:00.000Z',
        '2025-03-30T01:00:00.000Z',
        '2025-03-30T01:30:00.000Z',
      ]);
    });

    it('keeps a seconds-level schedule firing every second across the change', () => {
      const schedule = CronSchedule.create('* * * * * *', 'Europe/Berlin');
      const fires = schedule.firesBetween(at('2025-03-30T00:59:57Z'), at('2025-03-30T01:00:03Z'));
      expect(fires.map((fire) => fire.getTime() - fires[0]!.getTime())).toEqual([
        0, 1000, 2000, 3000, 4000, 5000,
      ]);
    });
  });

  describe('Europe/Berlin fall back (2025-10-26, 03:00 CEST becomes 02:00 CET)', () => {
    it('fires a repeated 02:30 once, at its first occurrence (CEST)', () => {
      const schedule = CronSchedule.create('30 2 * * *', 'Europe/Berlin');
      expect(
        iso(schedule.firesBetween(at('2025-10-25T12:00:00Z'), at('2025-10-27T12:00:00Z'))),
      ).toEqual([
        '2025-10-26T00:30:00.000Z', // 02:30 CEST; 02:30 CET (01:30 UTC) does not fire
        '2025-10-27T01:30:00.000Z',
      ]);
    });

    it('does not fire during the second pass of the repeated hour', () => {
      const schedule = CronSchedule.create('0 */15 * * * *', 'Europe/Berlin');
      const fires = iso(
        schedule.firesBetween(at('2025-10-25T23:50:00Z'), at('2025-10-26T02:20:00Z')),
      );
      expect(fires).toEqual([
        '2025-10-26T00:00:00.000Z', // 02:00 CEST
        '2025-10-26T00:15:00.000Z',
        '2025-10-26T00:30:00.000Z',
        '2025-10-26T00:45:00.000Z', // 02:45 CEST; 02:00-02:45 CET are not repeated
        '2025-10-26T02:00:00.000Z', // 03:00 CET
        '2025-10-26T02:15:00.000Z',
      ]);
    });

    it('finds a fire asked for from inside the repeated hour', () => {
      const schedule = CronSchedule.create('30 2 * * *', 'Europe/Berlin');
      // 02:10 CET, during the second pass: 02:30 already fired (in CEST), next is tomorrow.
      expect(schedule.nextFire(at('2025-10-26T01:10:00Z'))?.toISOString()).toBe(
        '2025-10-27T01:30:00.000Z',
      );
    });
  });

  it('handles zones west of UTC (America/New_York spring forward at 02:00 EST)', () => {
    const schedule = CronSchedule.create('30 2 * * *', 'America/New_York');
    expect(
      iso(schedule.firesBetween(at('2025-03-08T12:00:00Z'), at('2025-03-10T12:00:00Z'))),
    ).toEqual([
      '2025-03-09T07:30:00.000Z', // 02:30 does not exist: 03:30 EDT
      '2025-03-10T06:30:00.000Z', // 02:30 EDT
    ]);
  });

  it('follows node-cron semantics for the special day tokens (L, W, #, AND of day fields)', () => {
    const last = CronSchedule.create('0 0 L * *', 'UTC');
    expect(iso(last.nextFires(at('2024-02-01T00:00:00Z'), 2))).toEqual([
      '2024-02-29T00:00:00.000Z',
      '2024-03-31T00:00:00.000Z',
    ]);
    const secondMonday = CronSchedule.create('0 0 * * 1#2', 'UTC');
    expect(secondMonday.nextFire(at('2025-06-01T00:00:00Z'))?.toISOString()).toBe(
      '2025-06-09T00:00:00.000Z',
    );
    const fridayThe13th = CronSchedule.create('0 0 13 * 5', 'UTC');
    expect(fridayThe13th.nextFire(at('2025-01-01T00:00:00Z'))?.toISOString()).toBe(
      '2025-06-13T00:00:00.000Z',
    );
  });

  it('knows when an expression never fires, and how far apart fires can be', () => {
    const never = CronSchedule.create('0 0 31 * 2#1', 'UTC'); // the 31st is never the first Tuesday
    expect(never.nextFire(at('2025-01-01T00:00:00Z'))).toBeUndefined();
    const weekly = CronSchedule.create('0 22 * * 6', 'Europe/Berlin');
    // 22:00 Berlin every Saturday: across a DST change the gap is a week minus an hour.
    expect(weekly.shortestInterval(at('2025-01-01T00:00:00Z'))).toBe(7 * 86_400_000 - 3_600_000);
  });

  it('rejects bad expressions and unknown zones with errors that name them', () => {
    expect(() => CronSchedule.create('61 * * * *', 'UTC')).toThrow(CronSyntaxError);
    expect(() => CronSchedule.create('61 * * * *', 'UTC')).toThrow(/minute field "61"/);
    expect(() => CronSchedule.create('0 0 30 2 *', 'UTC')).toThrow(/never occurs/);
    expect(() => CronSchedule.create('0 1 * * *', 'Mars/Olympus')).toThrow(UnknownTimeZoneError);
  });
});
