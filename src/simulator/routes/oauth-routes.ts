import { credentialBody } from '../credential-body.js';
import { isWellFormedChallenge, isWellFormedVerifier, s256Challenge } from '../pkce.js';
import { redirectUriMatches } from '../redirect-uri.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';

type OAuthError =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'invalid_scope';

function single(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636), S256 only. The authorize
 * step approves the simulated user at once and redirects; errors follow RFC 6749: never a
 * redirect to an unknown client's or an unregistered URI, a redirect with `error` otherwise.
 */
export function registerOAuthRoutes(app: ZodApp, state: SimulatorState): void {
  app.route({
    method: 'GET',
    url: '/oauth_authorize',
    config: operation('oauthAuthorize', 'oauth'),
    schema: { hide: true },
    handler: async (request, reply) => {
      const query = request.query as Record<string, unknown>;
      const oauthApp = state.accounts.oauthApp;
      const clientId = single(query['client_id']);
      if (oauthApp === undefined || clientId !== oauthApp.clientId) {
        return reply
          .code(400)
          .send({ error: 'invalid_request', error_description: 'unknown client_id' });
      }
      const requestedRedirect = single(query['redirect_uri']);
      const onlyRedirect =
        oauthApp.redirectUris.length === 1 ? oauthApp.redirectUris[0] : undefined;
      const redirectUri = requestedRedirect ?? onlyRedirect;
      if (
        redirectUri === undefined ||
        !oauthApp.redirectUris.some((uri) => redirectUriMatches(uri, redirectUri))
      ) {
        return reply.code(400).send({
          error: 'invalid_request',
          error_description: 'redirect_uri is missing or not registered for this client',
        });
      }
      const stateParameter = single(query['state']);
      const redirectWith = (parameters: Record<string, string>) => {
        const target = new URL(redirectUri);
        for (const [key, value] of Object.entries(parameters)) target.searchParams.set(key, value);
        if (stateParameter !== undefined) target.searchParams.set('state', stateParameter);
        return reply
          .code(302)
          .header('location', target.toString())
          .header('cache-control', 'no-store')
          .send();
      };
      const fail = (error: OAuthError | 'unsupported_response_type', description: string) =>
        redirectWith({ error, error_description: description });

      if (single(query['response_type']) !== 'code')
        return fail('unsupported_response_type', 'response_type must be code');
      const scope = single(query['scope']) ?? oauthApp.scope;
      if (scope.split(' ').some((part) => part !== oauthApp.scope)) {
        return fail('invalid_scope', `the only scope available is ${oauthApp.scope}`);
      }
      const challenge = single(query['code_challenge']);
      if (challenge === undefined)
        return fail('invalid_request', 'code_challenge is required (PKCE)');
      if (single(query['code_challenge_method']) !== 'S256') {
        return fail('invalid_request', 'code_challenge_method must be S256');
      }
      if (!isWellFormedChallenge(challenge)) {
        return fail(
          'invalid_request',
          'code_challenge must be the base64url SHA-256 of the verifier (43 characters)',
        );
      }
      const code = state.authorizationCodes.issue({
        clientId,
        redirectUri,
        codeChallenge: challenge,
        scope,
        userId: state.identities.operator.id,
      });
      return redirectWith({ code });
    },
  });

  app.route({
    method: 'POST',
    url: '/api/oauth/token',
    config: operation('oauthToken', 'oauth', { rateLimited: true }),
    schema: { hide: true },
    handler: async (request, reply) => {
      void reply.header('cache-control', 'no-store');
      const fail = (error: OAuthError, description: string) =>
        reply.code(400).send({ error, error_description: description });
      const body = credentialBody(request.body);
      const grantType = single(body['grant_type']);
      if (grantType === undefined) return fail('invalid_request', 'grant_type is required');
      if (grantType !== 'authorization_code') {
        return fail('unsupported_grant_type', 'grant_type must be authorization_code');
      }
      const fields = [
        'client_id',
        'client_secret',
        'code',
        'redirect_uri',
        'code_verifier',
      ] as const;
      const missing = fields.filter(
        (field) => single(body[field]) === undefined || single(body[field]) === '',
      );
      if (missing.length > 0) return fail('invalid_request', `missing ${missing.join(', ')}`);
      const [clientId, clientSecret, code, redirectUri, verifier] = fields.map(
        (field) => single(body[field]) ?? '',
      );
      const oauthApp = state.accounts.oauthApp;
      if (
        oauthApp === undefined ||
        clientId !== oauthApp.clientId ||
        clientSecret !== oauthApp.clientSecret
      ) {
        return fail('invalid_client', 'unknown client or wrong client secret');
      }
      const grant = state.authorizationCodes.redeemable(code ?? '');
      if (grant === undefined || grant.clientId !== clientId) {
        return fail('invalid_grant', 'the code is unknown, expired or already used');
      }
      // A code is spent by its first redemption attempt, successful or not.
      grant.used = true;
      if (grant.redirectUri !== redirectUri) {
        return fail(
          'invalid_grant',
          'redirect_uri differs from the one of the authorization request',
        );
      }
      if (
        verifier === undefined ||
        !isWellFormedVerifier(verifier) ||
        s256Challenge(verifier) !== grant.codeChallenge
      ) {
        return fail('invalid_grant', 'code_verifier does not match the code_challenge');
      }
      const issued = state.tokens.issue(
        { kind: 'user', userId: grant.userId },
        clientId,
        'oauthTokens',
      );
      return {
        access_token: issued.token,
        token_type: 'Bearer',
        expires_in: issued.expiresIn,
        scope: grant.scope,
      };
    },
  });
}
