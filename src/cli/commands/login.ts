import { resolve } from 'node:path';
import { Command } from 'commander';
import { writeFileAtomically } from '../../platform/auth/credentials-file.js';
import { examples, positiveSeconds } from '../option-parsers.js';
import { formatFields } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

interface LoginOptions extends PlatformCommandOptions {
  readonly out: string;
  readonly timeout?: number;
  readonly clientId?: string;
  readonly redirectUri?: string;
  readonly scope?: string;
}

/** `paw login`: authorization code with PKCE, for the platform's retrieval feature. */
export function loginCommand(): Command {
  return withPlatformOptions(
    new Command('login')
      .description(
        'log a user in with the authorization code + PKCE flow: prints a URL to open, receives the redirect on a loopback address, stores the token',
      )
      .option('--out <file>', 'where to store the token (mode 0600)', 'paw-login.json')
      .option(
        '--timeout <seconds>',
        'how long to wait for the browser (default 300)',
        positiveSeconds,
      )
      .option('--client-id <id>', 'OAuth application client id (default PAW_OAUTH_CLIENT_ID)')
      .option(
        '--redirect-uri <uri>',
        'registered loopback redirect URI (default PAW_OAUTH_REDIRECT_URI)',
      )
      .option('--scope <scope>', 'scope to ask for (default PAW_OAUTH_SCOPE)')
      .addHelpText(
        'after',
        '\nThe OAuth application (registered in the platform) comes from PAW_OAUTH_CLIENT_ID,\n' +
          'PAW_OAUTH_REDIRECT_URI and PAW_OAUTH_SCOPE (or the flags), its secret from\n' +
          'PAW_OAUTH_CLIENT_SECRET only; the platform address from the credentials file or\n' +
          'PAW_PLATFORM_URL.\n' +
          examples(
            'paw login --credentials sa.json --out my-token.json',
            'paw login --redirect-uri http://127.0.0.1:8976/callback --scope retrieval',
          ),
      ),
    { json: true },
  ).action((options: LoginOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      const file = resolve(options.out);
      const token = await client.oauth.login({
        application: {
          ...(options.clientId === undefined ? {} : { clientId: options.clientId }),
          ...(options.redirectUri === undefined ? {} : { redirectUri: options.redirectUri }),
          ...(options.scope === undefined ? {} : { scope: options.scope }),
        },
        ...(options.timeout === undefined ? {} : { timeoutMs: options.timeout * 1000 }),
        onAuthorizeUrl: (url) => {
          // The URL carries no secret (the challenge and state are useless without the verifier).
          process.stdout.write(`Open this URL in your browser to log in:\n\n  ${url.href}\n\n`);
          output.note('waiting for the browser to come back...');
        },
      });
      const expiresAt =
        token.expiresIn === undefined
          ? null
          : new Date(Date.now() + token.expiresIn * 1000).toISOString();
      await writeFileAtomically(
        file,
        `${JSON.stringify(
          {
            access_token: token.accessToken.reveal(),
            token_type: token.tokenType,
            scope: token.scope ?? null,
            expires_at: expiresAt,
            base_url: client.baseUrl.href,
          },
          null,
          2,
        )}\n`,
      );
      output.result({ tokenFile: file, scope: token.scope ?? null, expiresAt }, () =>
        formatFields([
          ['logged in', 'yes'],
          ['token file', `${file} (mode 0600)`],
          ['scope', token.scope],
          ['expires', expiresAt],
        ]),
      );
    }),
  );
}
