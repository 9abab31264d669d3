import { z } from 'zod';
import { Secret } from '../../config/secret.js';
import { UsageError } from '../../shared/usage-error.js';
import { readNamedFile, type FileCap } from '../../shared/read-capped-file.js';
import {
  writePrivateFileAtomically,
  type PrivateWriteOptions,
} from '../../shared/write-private-file.js';

/** The path every platform token endpoint has; `{base_url}` is what comes before it. */
export const TOKEN_ENDPOINT_PATH = '/api/client_token';

/**
 * The platform's service-account credentials file, exactly as its UI hands it out and every
 * official tool reads it. Extra fields are kept out of paw's view but tolerated.
 */
const credentialsFileSchema = z.looseObject({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  name: z.string().optional(),
  access_token_uri: z.string().min(1),
});

export interface ServiceAccountCredentials {
  /** `client|<uuid>`. */
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly name: string | undefined;
  /** `{base_url}`, without a trailing slash. */
  readonly baseUrl: URL;
  /** The token endpoint (`access_token_uri`). */
  readonly tokenUrl: URL;
}

/** A credentials file is a few hundred bytes; anything near this is not one. */
const CREDENTIALS_FILE_CAP: FileCap = { maxBytes: 64 * 1024, what: 'a credentials file' };

/**
 * Reads a credentials file. Every problem (missing, unreadable, not JSON, a field missing, an
 * `access_token_uri` that is not a token endpoint) is a {@link UsageError} naming the file and
 * the fix; none repeats the secret.
 */
export async function readCredentialsFile(file: string): Promise<ServiceAccountCredentials> {
  const text = await readNamedFile(file, CREDENTIALS_FILE_CAP, (code) =>
    code === 'ENOENT'
      ? `${file}: no such credentials file; download one from the platform's service-account page, or write one with \`paw sim --credentials-out\``
      : `${file}: the credentials file cannot be read (${code ?? 'error'})`,
  );
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new UsageError(`${file}: is not JSON; expected the platform's credentials file`);
  }
  const parsed = credentialsFileSchema.safeParse(json);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.')))];
    throw new UsageError(
      `${file}: not a platform credentials file (check ${fields.join(', ') || 'its fields'}); ` +
        'it needs client_id, client_secret and access_token_uri',
    );
  }
  const tokenUrl = parseTokenUrl(parsed.data.access_token_uri, `${file}: access_token_uri`);
  return {
    clientId: parsed.data.client_id,
    clientSecret: new Secret(parsed.data.client_secret),
    name: parsed.data.name,
    baseUrl: baseUrlFromTokenUrl(tokenUrl),
    tokenUrl,
  };
}

/**
 * Parses an `access_token_uri`: an http(s) address ending in `/api/client_token`. A message
 * never repeats the value: a secret pasted into the wrong field would go to the terminal and
 * the logs.
 */
function parseTokenUrl(text: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${where} is not a URL; copy the file as the platform hands it out (it ends in ${TOKEN_ENDPOINT_PATH})`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(
      `${where} must be an https:// (or http://) address; it is a ${url.protocol} one`,
    );
  }
  if (!url.pathname.replace(/\/+$/, '').endsWith(TOKEN_ENDPOINT_PATH) || url.search !== '') {
    throw new UsageError(`${where} must end in ${TOKEN_ENDPOINT_PATH}, with no query`);
  }
  return url;
}

/** `{base_url}`: the access token URI without `/api/client_token`. */
function baseUrlFromTokenUrl(tokenUrl: URL): URL {
  const path = tokenUrl.pathname.replace(/\/+$/, '');
  return new URL(path.slice(0, -TOKEN_ENDPOINT_PATH.length) || '/', tokenUrl.origin);
}

export interface NewCredentials {
  readonly clientId: string;
  readonly clientSecret: Secret;
  readonly name: string | undefined;
  readonly accessTokenUri: string;
}

/**
 * Writes credentials in the platform's own file format, readable only by the owner (0600), and
 * atomically: a temporary file in the same folder is written, flushed and renamed over the
 * target, so a reader (another paw process re-reading after a rotation) sees the old file or the
 * new one, never half of either.
 */
export async function writeCredentialsFile(
  file: string,
  credentials: NewCredentials,
  options: PrivateWriteOptions = {},
): Promise<void> {
  const content = `${JSON.stringify(
    {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret.reveal(),
      name: credentials.name ?? '',
      access_token_uri: credentials.accessTokenUri,
    },
    null,
    2,
  )}\n`;
  await writeFileAtomically(file, content, options);
}

/** Writes `content` to `file` with mode 0600, atomically (see {@link writeCredentialsFile}). */
export async function writeFileAtomically(
  file: string,
  content: string,
  options: PrivateWriteOptions = {},
): Promise<void> {
  try {
    await writePrivateFileAtomically(file, content, options);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: cannot be written (${code ?? 'error'})`, { cause: error });
  }
}
