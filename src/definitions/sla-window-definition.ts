import { z } from 'zod';
import { commonShape, nonEmptyStringList } from './common-fields.js';
import { evenWithOtherProblems } from './refinement-options.js';
import { checkSchedule, durationSchema, scheduleShape } from './schedule-schema.js';
import { formatDuration, parseDuration } from '../shared/duration.js';

/** The SLA Domains a window pauses, by id and/or name, optionally on some clusters only. */
const slaDomainsSchema = z
  .strictObject({
    ids: nonEmptyStringList.optional(),
    names: nonEmptyStringList.optional(),
    /** Pause and resume on these clusters only; all of each SLA Domain's clusters by default. */
    clusterIds: nonEmptyStringList.optional(),
  })
  .refine((domains) => domains.ids !== undefined || domains.names !== undefined, {
    error: 'names no SLA Domain',
    params: { fix: 'give ids: [...] and/or names: [...]' },
  });

/** A window's schedule: the common keys plus `duration`, shorter than the schedule's period. */
const windowScheduleSchema = z
  .strictObject({
    ...scheduleShape,
    /** How long each window lasts: from the pause to the resume. */
    duration: durationSchema,
  })
  .superRefine((schedule, context) => {
    const compiled = checkSchedule(schedule, context);
    if (schedule.jitter !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['jitter'],
        message: 'a maintenance window opens at its time, so it takes no jitter',
        params: { fix: 'remove jitter (it is for spreading snapshot and rotation runs)' },
      });
    }
    if (typeof schedule.duration !== 'string') return;
    const durationMs = parseDuration(schedule.duration);
    if (durationMs === undefined) return;
    if (durationMs <= 0) {
      context.addIssue({
        code: 'custom',
        path: ['duration'],
        message: 'must be longer than 0',
        params: { fix: 'give the window a length, e.g. 4h' },
      });
      return;
    }
    const period = compiled?.shortestInterval(new Date());
    if (period !== undefined && durationMs >= period) {
      context.addIssue({
        code: 'custom',
        path: ['duration'],
        message: `${schedule.duration} is not shorter than the schedule's period (fires can be ${formatDuration(period)} apart), so windows would overlap`,
        params: { fix: `shorten the window below ${formatDuration(period)} or fire less often` },
      });
    }
  }, evenWithOtherProblems);

/**
 * A maintenance window: at each fire the SLA Domains are paused, and resumed `duration` later
 * (except those that were already paused, which paw leaves alone).
 */
export const slaWindowDefinitionSchema = z.strictObject({
  ...commonShape,
  kind: z.literal('sla-window'),
  schedule: windowScheduleSchema,
  slaDomains: slaDomainsSchema,
});

export type SlaWindowDefinition = z.output<typeof slaWindowDefinitionSchema>;
