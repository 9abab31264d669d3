import { SkipDays, type SkipCalendar } from './skip-days.js';
import type { ScheduleFields } from '../schedule-schema.js';

const cache = new WeakMap<ScheduleFields, SkipDays>();

/**
 * The days a loaded definition's schedule skips (`schedule.skip`: its own dates and the
 * calendars loading resolved), in its time zone. A calendar name still unresolved is a
 * programming error: definitions reach the scheduler only through the loader.
 */
export function skipDaysOf(schedule: ScheduleFields): SkipDays {
  const cached = cache.get(schedule);
  if (cached !== undefined) return cached;
  const ownDays: string[] = [];
  const calendars: SkipCalendar[] = [];
  for (const entry of schedule.skip ?? []) {
    if (typeof entry !== 'string') calendars.push({ name: entry.calendar, days: entry.days });
    else if (/^\d/.test(entry)) ownDays.push(entry);
    else throw new TypeError(`calendar ${entry} was not resolved when the definition was loaded`);
  }
  const days = new SkipDays([{ days: ownDays }, ...calendars], schedule.timezone);
  cache.set(schedule, days);
  return days;
}
