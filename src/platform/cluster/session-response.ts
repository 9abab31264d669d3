import { z } from 'zod';

/**
 * A cluster session as the cluster returns it (spec section 2): the service-account shape has a
 * `sessionId` and `serviceAccountId`, the personal-access-token shape a `clientId`. Both have
 * `token`, `expirationTime` and a possibly empty `organizationId`; extra fields are tolerated.
 */
export const sessionResponseSchema = z.looseObject({
  token: z.string().min(1),
  expirationTime: z.string().refine((text) => Number.isFinite(Date.parse(text)), {
    message: 'not an ISO 8601 time',
  }),
  sessionId: z.string().nullish(),
  serviceAccountId: z.string().nullish(),
  clientId: z.string().nullish(),
  organizationId: z.string().nullish(),
});

export const clusterVersionSchema = z.looseObject({ version: z.string().min(1) });
