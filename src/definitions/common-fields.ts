import { z } from 'zod';
import { notifySchema } from './notify-schema.js';
import { problem } from './refinement-options.js';

/**
 * A definition id: lowercase letters, digits and dashes, up to 64 characters. It becomes part of
 * Redis keys and BullMQ job ids, which is why `:` (a key separator) and `@` (the run-id
 * separator) are excluded.
 */
const DEFINITION_ID_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

const definitionIdSchema = z
  .string({ error: 'expected an id such as "nightly-vms"' })
  .refine(
    (id) => DEFINITION_ID_PATTERN.test(id),
    problem(
      'is not a valid id',
      'use lowercase letters, digits and dashes (up to 64, not starting or ending with a dash), e.g. "nightly-vms"',
    ),
  );

/** A non-empty string (an id or a name the platform knows). */
export const nonEmptyString = z.string().trim().min(1);

/** A non-empty list of distinct non-empty strings. */
export const nonEmptyStringList = z
  .array(nonEmptyString)
  .min(1)
  .refine(
    (values) => new Set(values).size === values.length,
    problem('lists a value twice', 'remove the duplicate'),
  );

/** Keys every kind has besides `schedule` and its own. */
export const commonShape = {
  id: definitionIdSchema,
  /** Free text shown by `paw schedules`. */
  description: z.string().optional(),
  /** `false` keeps the definition validated and runnable by hand (`paw run`) but never scheduled. */
  enabled: z.boolean().default(true),
  /** Where to post a summary when a run ends (see notify-schema.ts). */
  notify: notifySchema.optional(),
};
