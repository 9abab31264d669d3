import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { writeCredentialsFile } from '../../src/platform/auth/credentials-file.js';
import type { PlatformClient } from '../../src/platform/platform-client.js';
import type { SimulatorHandle } from '../../src/simulator/simulator.js';

/** A service account created for a test, with its credentials file (mode 0600). */
export interface TestAccount {
  readonly clientId: string;
  readonly file: string;
}

/**
 * Creates a service account with the given role (Administrator by default) through paw's client
 * and stores its credentials in `dir/<name>.json`, as `paw accounts create --out` would.
 */
export async function createTestAccount(
  platform: PlatformClient,
  sim: SimulatorHandle,
  dir: string,
  name: string,
  roleName = 'Administrator',
): Promise<TestAccount> {
  const role = sim.fixtures().roles.find((candidate) => candidate.name === roleName);
  if (role === undefined) throw new Error(`the simulator has no role ${roleName}`);
  const issued = await platform.graphql.serviceAccounts.create({
    name: `${name}-${Math.random().toString(36).slice(2, 8)}`,
    roleIds: [role.id],
  });
  const file = join(dir, `${name}.json`);
  await writeCredentialsFile(file, issued);
  return { clientId: issued.clientId, file };
}

/**
 * Whether the credentials in `file` authenticate: a token request straight to the simulator
 * (not through paw), as any other tool reading the file would make it.
 */
export async function authenticates(sim: SimulatorHandle, file: string): Promise<boolean> {
  const credentials = JSON.parse(await readFile(file, 'utf8')) as {
    client_id: string;
    client_secret: string;
  };
  const response = await request(`${sim.baseUrl}/api/client_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
      grant_type: 'client_credentials',
    }),
  });
  await response.body.text();
  return response.statusCode === 200;
}

/** The client secret in a credentials file (tests compare secrets; they never print them). */
export async function secretIn(file: string): Promise<string> {
  return (JSON.parse(await readFile(file, 'utf8')) as { client_secret: string }).client_secret;
}
