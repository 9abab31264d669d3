import { access } from 'node:fs/promises';
import { UsageError } from '../../shared/usage-error.js';
import {
  readCredentialsFile,
  type ServiceAccountCredentials,
} from '../../platform/auth/credentials-file.js';
import { AuthenticationError } from '../../platform/http/platform-errors.js';
import type { PlatformClient } from '../../platform/platform-client.js';

/**
 * What the sink holds right now:
 * - `works`: credentials of the account that the platform accepts (a token request succeeded);
 * - `refused`: credentials of the account whose secret the platform refuses;
 * - `missing`: no file yet (the first rotation creates it).
 */
export type SinkState = 'works' | 'refused' | 'missing';

/**
 * The credentials in the sink, checked to belong to `clientId` on this platform; undefined when
 * there is no file. A file of another account or another platform is never overwritten: that is
 * a UsageError naming the fix.
 */
export async function readSink(
  platform: PlatformClient,
  sink: string,
  clientId: string,
): Promise<ServiceAccountCredentials | undefined> {
  try {
    await access(sink);
  } catch {
    return undefined;
  }
  let credentials: ServiceAccountCredentials;
  try {
    credentials = await readCredentialsFile(sink);
  } catch (error) {
    throw new UsageError(
      `sink ${sink} exists but is not a credentials file paw can read ` +
        `(${error instanceof Error ? error.message : String(error)}); paw will not overwrite it: ` +
        'move it away or point sink.file elsewhere',
      { cause: error },
    );
  }
  if (credentials.clientId !== clientId) {
    throw new UsageError(
      `sink ${sink} holds the credentials of ${credentials.clientId}, not ${clientId}; ` +
        "paw will not overwrite another account's credentials: point sink.file elsewhere",
    );
  }
  if (credentials.baseUrl.origin !== platform.baseUrl.origin) {
    throw new UsageError(
      `sink ${sink} is for the platform at ${credentials.baseUrl.origin}, but paw works with ` +
        `${platform.baseUrl.origin}; paw will not send its secret elsewhere or overwrite it`,
    );
  }
  return credentials;
}

/**
 * Whether the sink's secret authenticates: one token request with it, to paw's own platform
 * only. The token obtained is revoked at once (it was only a proof). A transient failure of the
 * platform is thrown, not reported as `refused`: only the platform saying "no" means no.
 */
export async function checkSink(
  platform: PlatformClient,
  sink: string,
  clientId: string,
  signal?: AbortSignal,
): Promise<SinkState> {
  const credentials = await readSink(platform, sink, clientId);
  if (credentials === undefined) return 'missing';
  let token;
  try {
    token = await platform.accessTokens.issue(credentials, signal);
  } catch (error) {
    if (error instanceof AuthenticationError) return 'refused';
    throw error;
  }
  await platform.accessTokens.revoke(token.value, signal).catch(() => undefined);
  return 'works';
}
