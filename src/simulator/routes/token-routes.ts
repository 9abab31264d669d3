import { z } from 'zod';
import { credentialBody } from '../credential-body.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';

const TOKEN_PATH = '/api/client_token';

const tokenRequest = z.object({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  // Optional, as official clients omit it; when present it must be the right grant.
  grant_type: z.literal('client_credentials').optional(),
});

/** `POST /api/client_token` (form or JSON) and `DELETE /api/session`. */
export function registerTokenRoutes(app: ZodApp, state: SimulatorState): void {
  const failure = (code: number, message: string) => ({ code, uri: TOKEN_PATH, message });

  app.route({
    method: 'POST',
    url: TOKEN_PATH,
    config: operation('createClientToken', 'token', { rateLimited: true }),
    schema: { hide: true },
    handler: async (request, reply) => {
      const parsed = tokenRequest.safeParse(credentialBody(request.body));
      if (!parsed.success) {
        const problem = parsed.error.issues[0];
        const field = problem?.path.join('.') || 'body';
        return reply
          .code(400)
          .send(
            failure(
              400,
              field === 'grant_type'
                ? 'INVALID_ARGUMENT: grant_type must be client_credentials'
                : `INVALID_ARGUMENT: ${field} is required (form or JSON fields client_id, client_secret)`,
            ),
          );
      }
      const { client_id: clientId, client_secret: clientSecret } = parsed.data;
      const check = state.accounts.checkServiceAccountSecret(clientId, clientSecret);
      if (!check.ok) {
        return reply
          .code(401)
          .send(
            failure(
              401,
              check.reason === 'wrongSecret'
                ? 'UNAUTHENTICATED: incorrect client secret'
                : 'UNAUTHENTICATED: unknown client id',
            ),
          );
      }
      check.account.lastLogin = state.clock.now();
      const issued = state.tokens.issue(
        { kind: 'serviceAccount', uuid: check.account.uuid },
        clientId,
        'accessTokens',
      );
      void reply.header('cache-control', 'no-store');
      return {
        client_id: check.account.clientId,
        access_token: issued.token,
        expires_in: issued.expiresIn,
      };
    },
  });

  app.route({
    method: 'DELETE',
    url: '/api/session',
    config: operation('deleteSession', 'gateway', { bearerAuth: true, rateLimited: true }),
    schema: { hide: true },
    handler: async (request, reply) => {
      // The gateway has already answered 401 for an expired, revoked or unknown token.
      if (request.accessToken !== null) state.tokens.revoke(request.accessToken);
      return reply.code(204).send();
    },
  });
}
