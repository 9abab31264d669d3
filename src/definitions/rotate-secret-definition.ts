import { z } from 'zod';
import { commonShape } from './common-fields.js';
import { problem } from './refinement-options.js';
import { scheduleSchema } from './schedule-schema.js';

/** A service account's client id: `client|<uuid>`. */
const CLIENT_ID_PATTERN = /^client\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A secret rotation: the service account whose secret is rotated, and the sink the new
 * credentials are written to (a file in the platform's credentials format, mode 0600). Never a
 * secret itself: the definition names the account, the secret only ever lives in the sink.
 */
export const rotateSecretDefinitionSchema = z.strictObject({
  ...commonShape,
  kind: z.literal('rotate-secret'),
  schedule: scheduleSchema,
  serviceAccount: z.strictObject({
    clientId: z
      .string({ error: 'expected a client id such as "client|<uuid>"' })
      .refine(
        (clientId) => CLIENT_ID_PATTERN.test(clientId),
        problem('is not a service-account client id', 'write it as "client|<uuid>", quoted'),
      ),
  }),
  sink: z.strictObject({
    /** Relative paths are resolved against the folder of the definition's file. */
    file: z.string({ error: 'expected a file path' }).trim().min(1),
  }),
});
