import { describe, expect, it } from 'vitest';
import { buildAuthorizeUrl } from '../../../src/platform/oauth/authorization-request.js';
import { readAuthorizationResponse } from '../../../src/platform/oauth/authorization-response.js';
import { codeChallengeS256, createCodeVerifier } from '../../../src/platform/oauth/pkce.js';
import { PermissionError, ProtocolError } from '../../../src/platform/http/platform-errors.js';

describe('PKCE', () => {
  it('holds the RFC 7636 appendix B vector', () => {
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('makes fresh 43-character unreserved verifiers', () => {
    const a = createCodeVerifier();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createCodeVerifier()).not.toBe(a);
  });

  it('builds the authorize URL of spec 4.4', () => {
    const url = buildAuthorizeUrl({
      baseUrl: new URL('https://acct.example'),
      clientId: 'app-1',
      redirectUri: 'http://127.0.0.1:8765/callback',
      scope: 'retrieval',
      state: 'st',
      codeChallenge: 'ch',
    });
    expect(url.origin + url.pathname).toBe('https://acct.example/oauth_authorize');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: 'app-1',
      redirect_uri: 'http://127.0.0.1:8765/callback',
      scope: 'retrieval',
      state: 'st',
      code_challenge: 'ch',
      code_challenge_method: 'S256',
    });
    expect(url.search).toContain('redirect_uri=http%3A%2F%2F127.0.0.1%3A8765%2Fcallback');
  });

  it('checks the state on return and reads the code or the error', () => {
    const back = (query: string) => new URL(`http://127.0.0.1:1/cb?${query}`);
    expect(readAuthorizationResponse(back('code=abc&state=s1'), 's1').reveal()).toBe('abc');
    expect(() => readAuthorizationResponse(back('code=abc&state=s2'), 's1')).toThrow(ProtocolError);
    expect(() => readAuthorizationResponse(back('code=abc'), 's1')).toThrow(/different state/);
    expect(() => readAuthorizationResponse(back('error=access_denied&state=s1'), 's1')).toThrow(
      PermissionError,
    );
  });
});
