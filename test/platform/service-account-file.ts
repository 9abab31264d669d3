import { join } from 'node:path';
import { writeCredentialsFile } from '../../src/platform/auth/credentials-file.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';

/**
 * Creates a service account through GraphQL and writes its credentials file, so that a test can
 * rotate a secret without touching the account the rest of the file uses.
 */
export async function createAccountFile(
  admin: PlatformClient,
  dir: string,
  name: string,
  roleIds: readonly string[],
): Promise<{ file: string; clientId: string }> {
  const issued = await admin.graphql.serviceAccounts.create({ name, roleIds });
  const file = join(dir, `${name}.json`);
  await writeCredentialsFile(file, issued);
  return { file, clientId: issued.clientId };
}
