import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InvalidRequestError,
  NotFoundError,
  PermissionError,
} from '../../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { startPlatformTestKit, type PlatformTestKit } from '../platform-test-kit.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

describe('service accounts through GraphQL', () => {
  let kit: PlatformTestKit;
  let admin: PlatformClient;
  let roles: { id: string; name: string }[];

  beforeAll(async () => {
    kit = await startPlatformTestKit({ workloads: 10, seed: 2 });
    admin = await kit.client({ env: { PAW_PLATFORM_PAGE_SIZE: '2' } });
    roles = kit.sim.fixtures().roles;
  });
  afterAll(() => kit.close());

  const role = (name: string): string => {
    const found = roles.find((candidate) => candidate.name === name);
    if (found === undefined) throw new Error(`no role ${name}`);
    return found.id;
  };

  it('lists accounts across pages, with their roles', async () => {
    const accounts = await admin.graphql.serviceAccounts.list().toArray();
    expect(accounts.length).toBeGreaterThanOrEqual(4);
    const automation = accounts.find((account) => account.name === 'paw-automation');
    expect(automation?.clientId).toMatch(/^client\|/);
    expect(automation?.roles?.map((r) => r.name)).toEqual(['Administrator']);
  });

  it('creates, re-roles, rotates and deletes an account', async () => {
    const created = await admin.graphql.serviceAccounts.create({
      name: 'graphql-test',
      description: 'made by a test',
      roleIds: [role('Snapshot Operator')],
    });
    expect(created.clientId).toMatch(/^client\|[0-9a-f-]{36}$/);
    expect(created.accessTokenUri).toBe(`${kit.sim.baseUrl}/api/client_token`);
    expect(JSON.stringify(created)).not.toContain(created.clientSecret.reveal());

    await admin.graphql.serviceAccounts.setRoles(created.clientId, [role('Read Only Admin')]);
    const listed = await admin.graphql.serviceAccounts.list().toArray();
    expect(listed.find((a) => a.clientId === created.clientId)?.roles?.map((r) => r.name)).toEqual([
      'Read Only Admin',
    ]);

    const rotated = await admin.graphql.serviceAccounts.rotateSecret(
      created.clientId.slice('client|'.length),
    );
    expect(rotated.clientId).toBe(created.clientId);
    expect(rotated.clientSecret.reveal()).not.toBe(created.clientSecret.reveal());

    await admin.graphql.serviceAccounts.delete([created.clientId]);
    const after = await admin.graphql.serviceAccounts.list().toArray();
    expect(after.some((a) => a.clientId === created.clientId)).toBe(false);
  });

  it('turns a 200 with errors into a typed failure', async () => {
    const missing = await admin.graphql.serviceAccounts
      .rotateSecret('client|00000000-0000-4000-8000-000000000000')
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({ operation: 'rotateServiceAccountSecret' });

    const readOnlyFile = join(kit.dir, 'readonly.json');
    await writeFile(readOnlyFile, JSON.stringify(kit.sim.fixtures().serviceAccounts.readOnly));
    const readOnly = await kit.client({ env: { PAW_CREDENTIALS_FILE: readOnlyFile } });
    const denied = await readOnly.graphql.serviceAccounts
      .create({ name: 'nope', roleIds: [role('Administrator')] })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(PermissionError);
    expect(denied).toMatchObject({ status: 403, operation: 'createServiceAccount' });
  });

  it('refuses a malformed account id before any request', async () => {
    const error = await admin.graphql.serviceAccounts
      .rotateSecret('client|not-a-uuid')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).status).toBeUndefined();
    expect((error as Error).message).toContain('client|<uuid>');
  });
});
