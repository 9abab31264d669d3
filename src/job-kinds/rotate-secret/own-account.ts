import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Settings } from '../../config/settings-schema.js';
import { UsageError } from '../../shared/usage-error.js';
import type { PlatformClient } from '../../platform/platform-client.js';

/**
 * Whether the account to rotate is the one paw itself runs as. Rotating it is allowed only when
 * its sink is paw's own credentials file: that is where paw, and every other paw process
 * sharing the file, finds the new secret when the old one is refused. Anything else would lock
 * paw out at its next start (credentials from the environment cannot be rewritten), so it is a
 * UsageError naming the fix, raised before anything is rotated.
 */
export async function isPawsOwnAccount(
  platform: PlatformClient,
  settings: { readonly platform: Pick<Settings['platform'], 'credentialsFile'> },
  clientId: string,
  sink: string,
): Promise<boolean> {
  const own = platform.credentials.current().clientId;
  if (own !== clientId) return false;
  const file = settings.platform.credentialsFile;
  if (file === undefined) {
    throw new UsageError(
      `${clientId} is the account paw itself runs as, with its secret from the environment ` +
        '(PAW_CLIENT_SECRET): rotating it would lock paw out at its next start. Give paw a ' +
        `credentials file (PAW_CREDENTIALS_FILE) and make it the sink of this rotation`,
    );
  }
  if ((await canonical(file)) !== (await canonical(sink))) {
    throw new UsageError(
      `${clientId} is the account paw itself runs as, but the sink ${sink} is not paw's ` +
        `credentials file ${resolve(file)}: paw and the other paw processes would lose the ` +
        'secret they run with. Make sink.file that file',
    );
  }
  return true;
}

/** The path with symbolic links resolved (as given, made absolute, if it does not exist). */
async function canonical(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    return resolve(path);
  }
}
