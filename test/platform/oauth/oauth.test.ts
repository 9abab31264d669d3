import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { startPlatformTestKit, type PlatformTestKit } from '../platform-test-kit.js';

/** Plays the browser: opens the authorize URL and follows the redirect to the loopback listener. */
async function actAsBrowser(authorizeUrl: URL, tamper?: (redirect: URL) => void): Promise<void> {
  const approval = await request(authorizeUrl, { method: 'GET' });
  await approval.body.dump();
  expect(approval.statusCode).toBe(302);
  const location = new URL(String(approval.headers['location']));
  tamper?.(location);
  const landing = await request(location, { method: 'GET' });
  const page = await landing.body.text();
  expect(landing.statusCode).toBe(200);
  expect(page).not.toContain(location.searchParams.get('code') ?? '(none)');
}

describe('paw login: authorization code with PKCE against the simulator', () => {
  let kit: PlatformTestKit;
  let client: PlatformClient;

  beforeAll(async () => {
    kit = await startPlatformTestKit({ workloads: 5, seed: 8 });
    const app = kit.sim.fixtures().oauthApp;
    client = await kit.client({
      env: {
        PAW_OAUTH_CLIENT_ID: app.clientId,
        PAW_OAUTH_CLIENT_SECRET: app.clientSecret,
        // The registered loopback URI with port 0: the listener takes a free port (RFC 8252 7.3).
        PAW_OAUTH_REDIRECT_URI: 'http://127.0.0.1:0/callback',
        PAW_OAUTH_SCOPE: app.scope,
      },
    });
  });
  afterAll(() => kit.close());

  it('gets a token through the loopback redirect', async () => {
    let browsing: Promise<void> | undefined;
    const token = await client.oauth.login({
      timeoutMs: 20_000,
      onAuthorizeUrl: (url) => {
        expect(url.searchParams.get('code_challenge_method')).toBe('S256');
        browsing = actAsBrowser(url);
      },
    });
    await browsing;
    expect(token.accessToken.reveal().length).toBeGreaterThan(10);
    expect(token.scope).toBe(kit.sim.fixtures().oauthApp.scope);
  });

  it('aborts when the state that comes back is not the one sent', async () => {
    let browsing: Promise<void> | undefined;
    const error = await client.oauth
      .login({
        timeoutMs: 20_000,
        onAuthorizeUrl: (url) => {
          browsing = actAsBrowser(url, (redirect) => redirect.searchParams.set('state', 'forged'));
        },
      })
      .catch((e: unknown) => e);
    await browsing;
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ code: 'STATE_MISMATCH' });
  });
});
