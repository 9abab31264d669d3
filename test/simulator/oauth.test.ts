// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s256Challenge } from '../../src/simulator/pkce.js';
import { startTestSimulator, type TestSimulator } from './simulator-fixture.js';

// RFC 7636 appendix B.
const RFC_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const RFC_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('OAuth authorization code with PKCE', () => {
  let t: TestSimulator;
  let app: TestSimulator['fixtures']['oauthApp'];
  let redirectUri: string;

  beforeAll(async () => {
    t = await startTestSimulator({
      workloads: 10,
      oauth: {
        redirectUris: ['http://127.0.0.1:8976/callback', 'https://app.example.com/oauth/cb'],
        scope: 'retrieval',
      },
    });
    app = t.fixtures.oauthApp;
    redirectUri = app.redirectUris[1] ?? '';
  });
  afterAll(() => t.close());

  const authorize = (parameters: Record<string, string>) =>
    t.api('GET', `/oauth_authorize?${new URLSearchParams(parameters).toString()}`);

  const validParameters = (challenge = RFC_CHALLENGE, state = randomBytes(8).toString('hex')) => ({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: app.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });

  const codeFor = async (challenge = RFC_CHALLENGE): Promise<string> => {
    const response = await authorize(validParameters(challenge));
    expect(response.status).toBe(302);
    return new URL(response.headers['location'] as string).searchParams.get('code') ?? '';
  };

  const exchange = (fields: Record<string, string>) =>
    t.api('POST', '/api/oauth/token', { form: fields });

  const exchangeFields = (code: string, verifier = RFC_VERIFIER) => ({
    grant_type: 'authorization_code',
    client_id: app.clientId,
    client_secret: app.clientSecret,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });

  it('computes the RFC 7636 appendix B challenge', () => {
    expect(s256Challenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
    expect(createHash('sha256').update(RFC_VERIFIER).digest('base64url')).toBe(RFC_CHALLENGE);
  });

  it('redirects with code and state, and exchanges the code for a token with the appendix B verifier', async () => {
    const state = 'xyz-123';
    const response = await authorize(validParameters(RFC_CHALLENGE, state));
    expect(response.status).toBe(302);
    const location = new URL(response.headers['location'] as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe(state);
    const code = location.searchParams.get('code') ?? '';
    expect(code.length).toBeGreaterThan(20);

    const token = await exchange(exchangeFields(code));
    expect(token.status).toBe(200);
    expect(token.headers['cache-control']).toBe('no-store');
    expect(token.body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 43_200,
      scope: 'retrieval',
    });
    // The token acts for the simulated user at the gateway.
    const workloads = await t.api('GET', '/api/rest/workloads', {
      token: token.body.access_token as string,
    });
    expect(workloads.status).toBe(200);

    // One use per code.
    const reuse = await exchange(exchangeFields(code));
    expect(reuse.status).toBe(400);
    expect(reuse.body.error).toBe('invalid_grant');
  });

  it('refuses a wrong verifier with invalid_grant, and the code is spent', async () => {
    const code = await codeFor();
    const wrong = await exchange(exchangeFields(code, `${RFC_VERIFIER.slice(0, -1)}x`));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({
      error: 'invalid_grant',
      error_description: expect.stringContaining('code_verifier'),
    });
    expect((await exchange(exchangeFields(code))).body.error).toBe('invalid_grant');
  });

  it('works with a fresh random verifier', async () => {
    const verifier = randomBytes(48).toString('base64url');
    const code = await codeFor(s256Challenge(verifier));
    expect((await exchange(exchangeFields(code, verifier))).status).toBe(200);
  });

  it('refuses client and request errors at the token endpoint', async () => {
    const code = await codeFor();
    const badSecret = await exchange({ ...exchangeFields(code), client_secret: 'nope' });
    expect(badSecret.status).toBe(400);
    expect(badSecret.body.error).toBe('invalid_client');
    const badClient = await exchange({ ...exchangeFields(code), client_id: 'nope' });
    expect(badClient.body.error).toBe('invalid_client');
    const otherRedirect = await exchange({
      ...exchangeFields(code),
      redirect_uri: 'http://127.0.0.1:8976/callback',
    });
    expect(otherRedirect.body.error).toBe('invalid_grant');
    const { code_verifier: _verifier, ...withoutVerifier } = exchangeFields(await codeFor());
    const missing = await exchange(withoutVerifier);
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description: expect.stringContaining('code_verifier'),
    });
    const grant = await exchange({
      ...exchangeFields(await codeFor()),
      grant_type: 'client_credentials',
    });
    expect(grant.body.error).toBe('unsupported_grant_type');
    const unknownCode = await exchange(exchangeFields('no-such-code'));
    expect(unknownCode.body.error).toBe('invalid_grant');
  });

  it('never redirects for an unknown client or an unregistered redirect URI', async () => {
    const unknownClient = await authorize({ ...validParameters(), client_id: 'nope' });
    expect(unknownClient.status).toBe(400);
    expect(unknownClient.headers['location']).toBeUndefined();
    expect(unknownClient.body.error).toBe('invalid_request');
    const unregistered = await authorize({
      ...validParameters(),
      redirect_uri: 'https://evil.example.com/cb',
    });
    expect(unregistered.status).toBe(400);
    expect(unregistered.headers['location']).toBeUndefined();
  });

  it('redirects other authorization errors with error and state', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: 'too-short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'everything' }, 'invalid_scope'],
    ];
    for (const [override, error] of cases) {
      const response = await authorize({ ...validParameters(RFC_CHALLENGE, 'st'), ...override });
      expect(response.status, JSON.stringify(override)).toBe(302);
      const location = new URL(response.headers['location'] as string);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('st');
      expect(location.searchParams.get('code')).toBeNull();
    }
    const { code_challenge: _challenge, ...withoutChallenge } = validParameters();
    const noChallenge = await authorize(withoutChallenge);
    expect(new URL(noChallenge.headers['location'] as string).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  it('accepts a loopback redirect URI on any port (RFC 8252), with the same URI at the token endpoint', async () => {
    const loopback = 'http://127.0.0.1:53219/callback';
    const response = await authorize({ ...validParameters(), redirect_uri: loopback });
    expect(response.status).toBe(302);
    const location = new URL(response.headers['location'] as string);
    expect(location.port).toBe('53219');
    const code = location.searchParams.get('code') ?? '';
    expect((await exchange({ ...exchangeFields(code), redirect_uri: loopback })).status).toBe(200);
    const otherPath = await authorize({
      ...validParameters(),
      redirect_uri: 'http://127.0.0.1:53219/other',
    });
    expect(otherPath.status).toBe(400);
  });
});
