import type { Settings } from '../../config/settings-schema.js';
import { UsageError } from '../../shared/usage-error.js';
import { appendPath } from '../http/append-path.js';
import { assertTransportSecurity } from '../http/origin-guard.js';
import {
  readCredentialsFile,
  TOKEN_ENDPOINT_PATH,
  type ServiceAccountCredentials,
} from './credentials-file.js';

/** How to provide credentials; every "missing credentials" message ends with it. */
const HOW_TO_PROVIDE_CREDENTIALS =
  'pass --credentials FILE (the credentials file the platform gives you, or the one ' +
  '`paw sim --credentials-out sa.json` writes), set PAW_CREDENTIALS_FILE, or set ' +
  'PAW_PLATFORM_URL, PAW_CLIENT_ID and PAW_CLIENT_SECRET together';

/** Where a client's service-account credentials come from, and how to read them again. */
export interface CredentialsSource {
  /** For messages: "credentials file /x/sa.json" or "PAW_CLIENT_ID and PAW_CLIENT_SECRET". */
  readonly description: string;
  /** `{base_url}`. */
  readonly baseUrl: URL;
  /** The credentials, or a UsageError saying how to provide them when there are none. */
  current(): ServiceAccountCredentials;
  /**
   * Reads the credentials again from where they came from, for when the platform refused the
   * secret: another paw process may have rotated it and written the new one to the same file.
   * Resolves to undefined when the source cannot change (environment variables).
   */
  reload(): Promise<ServiceAccountCredentials | undefined>;
}

type PlatformSettings = Settings['platform'];

/**
 * Whether any platform credential is configured: a credentials file, or any of the settings given
 * one by one. A process for which the platform is optional (a scheduler, for protection coverage)
 * goes without it when none is; a partial or contradictory set still fails, in
 * {@link resolveCredentialsSource}.
 */
export function platformCredentialsConfigured(platform: PlatformSettings): boolean {
  return (
    platform.credentialsFile !== undefined ||
    platform.url !== undefined ||
    platform.clientId !== undefined ||
    platform.clientSecret !== undefined
  );
}

/**
 * Resolves the configured credentials: a credentials file (`--credentials FILE`,
 * `PAW_CREDENTIALS_FILE`) or `PAW_PLATFORM_URL` + `PAW_CLIENT_ID` + `PAW_CLIENT_SECRET`. Both at
 * once, or a partial set, is a {@link UsageError}; so is plain http:// to anything but loopback
 * (unless allowed). `PAW_PLATFORM_URL` with a credentials file pins the platform: a file whose
 * token address is elsewhere is refused, naming both. `PAW_PLATFORM_URL` alone gives a base URL without credentials, which is all
 * `paw login` needs; asking such a source for credentials fails with how to provide them.
 */
export async function resolveCredentialsSource(
  platform: PlatformSettings,
): Promise<CredentialsSource> {
  const loose = [
    platform.url === undefined ? undefined : 'PAW_PLATFORM_URL (platform.url)',
    platform.clientId === undefined ? undefined : 'PAW_CLIENT_ID (platform.clientId)',
    platform.clientSecret === undefined ? undefined : 'PAW_CLIENT_SECRET',
  ].filter((name) => name !== undefined);

  if (platform.credentialsFile !== undefined) {
    const credentialsToo = loose.filter((name) => !name.startsWith('PAW_PLATFORM_URL'));
    if (credentialsToo.length > 0) {
      throw new UsageError(
        `contradictory platform credentials: a credentials file (${platform.credentialsFile}) and ` +
          `${credentialsToo.join(', ')} are both set; use one or the other`,
      );
    }
    const file = platform.credentialsFile;
    const first = await readCredentialsFile(file);
    // With both, PAW_PLATFORM_URL pins the platform: the file's secret goes nowhere else.
    if (platform.url !== undefined && new URL(platform.url).origin !== first.baseUrl.origin) {
      throw new UsageError(
        `${file}: its access_token_uri is on ${first.baseUrl.origin}, but the configured platform ` +
          `(PAW_PLATFORM_URL, platform.url) is ${new URL(platform.url).origin}; paw will not send ` +
          'the secret to another origin: use the credentials file of that platform, or correct the setting',
      );
    }
    assertTransportSecurity(first.baseUrl, {
      allowInsecureHttp: platform.allowInsecureHttp,
      setting: `${file}: access_token_uri`,
    });
    let latest = first;
    return {
      description: `credentials file ${file}`,
      baseUrl: first.baseUrl,
      current: () => latest,
      reload: async () => {
        const reread = await readCredentialsFile(file);
        // A file that now names another account or platform is not a rotation: keep the old one.
        if (reread.clientId !== first.clientId || reread.tokenUrl.href !== first.tokenUrl.href) {
          throw new UsageError(
            `${file}: now holds credentials for ${reread.clientId} at ${reread.baseUrl.origin}, ` +
              `not ${first.clientId}; restart paw to switch accounts`,
          );
        }
        latest = reread;
        return reread;
      },
    };
  }

  if (platform.url === undefined) {
    if (loose.length > 0) {
      throw new UsageError(
        `incomplete platform credentials: ${loose.join(' and ')} set but PAW_PLATFORM_URL missing; ${HOW_TO_PROVIDE_CREDENTIALS}`,
      );
    }
    throw new UsageError(`no platform credentials: ${HOW_TO_PROVIDE_CREDENTIALS}`);
  }

  const baseUrl = new URL(platform.url.replace(/\/+$/, ''));
  assertTransportSecurity(baseUrl, {
    allowInsecureHttp: platform.allowInsecureHttp,
    setting: 'PAW_PLATFORM_URL (platform.url)',
  });
  const { clientId, clientSecret } = platform;
  if (clientId !== undefined && clientSecret !== undefined) {
    const credentials: ServiceAccountCredentials = {
      clientId,
      clientSecret,
      name: undefined,
      baseUrl,
      tokenUrl: appendPath(baseUrl, TOKEN_ENDPOINT_PATH),
    };
    return {
      description: 'PAW_CLIENT_ID and PAW_CLIENT_SECRET',
      baseUrl,
      current: () => credentials,
      reload: async () => undefined,
    };
  }
  if (clientId !== undefined || clientSecret !== undefined) {
    const missing = clientId === undefined ? 'PAW_CLIENT_ID' : 'PAW_CLIENT_SECRET';
    throw new UsageError(
      `incomplete platform credentials: ${missing} is missing; ${HOW_TO_PROVIDE_CREDENTIALS}`,
    );
  }
  return {
    description: 'PAW_PLATFORM_URL only',
    baseUrl,
    current: () => {
      throw new UsageError(
        `no service-account credentials (only PAW_PLATFORM_URL is set): ${HOW_TO_PROVIDE_CREDENTIALS}`,
      );
    },
    reload: async () => undefined,
  };
}
