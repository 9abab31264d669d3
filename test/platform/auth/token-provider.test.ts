import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeCredentialsFile } from '../../../src/platform/auth/credentials-file.js';
import { AuthenticationError } from '../../../src/platform/http/platform-errors.js';
import type { PlatformClient } from '../../../src/platform/platform-client.js';
import { KubeletVolume } from '../../testkit/kubelet-volume.js';
import { createAccountFile } from '../service-account-file.js';
import { startPlatformTestKit, type PlatformTestKit } from '../platform-test-kit.js';

interface Stats {
  tokens: { issued: number; revoked: number };
  byOperationAndStatus: Record<string, Record<string, number>>;
}

describe('the token provider against the simulator', () => {
  let kit: PlatformTestKit;
  let admin: PlatformClient;
  let vm: string;
  let adminRole: string;
  const LIFETIME_SECONDS = 2;

  beforeAll(async () => {
    // Tokens live two real seconds, so that expiry happens within a test.
    kit = await startPlatformTestKit({
      workloads: 30,
      seed: 21,
      tokenLifetimeSeconds: LIFETIME_SECONDS,
    });
    admin = await kit.client();
    const fixtures = kit.sim.fixtures();
    vm = fixtures.workloads.samples.vsphereVm ?? '';
    adminRole = fixtures.roles.find((role) => role.name === 'Administrator')?.id ?? '';
  });
  afterAll(() => kit.close());

  const stats = async () => (await kit.control('GET', '/_sim/stats')) as Stats;

  it('shares one token request among concurrent callers', async () => {
    const client = await kit.client();
    const before = (await stats()).tokens.issued;
    await Promise.all(Array.from({ length: 25 }, () => client.rest.workloads.get(vm)));
    expect(client.tokens.stats.tokenRequests).toBe(1);
    expect((await stats()).tokens.issued - before).toBe(1);
  });

  it('refreshes once when the token expires mid-run, without a failed call', async () => {
    const client = await kit.client();
    await client.rest.workloads.get(vm);
    await sleep(LIFETIME_SECONDS * 1000 + 100);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => client.rest.workloads.get(vm)),
    );
    expect(results.every((workload) => workload.id === vm)).toBe(true);
    expect(client.tokens.stats).toMatchObject({ tokenRequests: 2, rejectedTokens: 0 });
  });

  it('replays a call exactly once with a new token after a 401 for a token it thought valid', async () => {
    // A clock that stands still: the provider believes its token fresh after the platform let it expire.
    const frozen = Date.now();
    const client = await kit.client({ now: () => frozen });
    await client.rest.workloads.get(vm);
    await sleep(LIFETIME_SECONDS * 1000 + 100);
    const before = (await stats()).byOperationAndStatus['getWorkload']?.['401'] ?? 0;
    expect((await client.rest.workloads.get(vm)).id).toBe(vm);
    expect(client.tokens.stats).toMatchObject({ tokenRequests: 2, rejectedTokens: 1 });
    expect(((await stats()).byOperationAndStatus['getWorkload']?.['401'] ?? 0) - before).toBe(1);
  });

  it('revokes its session on close, and refuses to work afterwards', async () => {
    const client = await kit.client();
    await client.rest.workloads.get(vm);
    const before = (await stats()).tokens.revoked;
    await client.close();
    expect((await stats()).tokens.revoked - before).toBe(1);
    await expect(client.rest.workloads.get(vm)).rejects.toThrow(/closed/);
  });

  it('picks up a secret rotated by another process from the credentials file', async () => {
    const { file, clientId } = await createAccountFile(admin, kit.dir, 'rotated-under-me', [
      adminRole,
    ]);
    const running = await kit.client({ env: { PAW_CREDENTIALS_FILE: file } });
    await running.rest.workloads.get(vm);

    // Another paw process rotates the secret and writes the new one to the same file.
    const rotator = await kit.client({ env: { PAW_CREDENTIALS_FILE: file } });
    const issued = await rotator.graphql.serviceAccounts.rotateSecret(clientId);
    await writeCredentialsFile(file, issued);

    await sleep(LIFETIME_SECONDS * 1000 + 100);
    expect((await running.rest.workloads.get(vm)).id).toBe(vm);
    // The first token, the refresh refused with the old secret, the refresh with the new one.
    expect(running.tokens.stats).toMatchObject({ credentialReloads: 1, tokenRequests: 3 });
  });

  it('picks up a secret rotated into a Kubernetes Secret volume (kubelet swaps the folder)', async () => {
    const { file, clientId } = await createAccountFile(admin, kit.dir, 'mounted', [adminRole]);
    const volume = await KubeletVolume.create({ 'credentials.json': await readFile(file, 'utf8') });
    const mounted = join(volume.dir, 'credentials.json');
    const running = await kit.client({ env: { PAW_CREDENTIALS_FILE: mounted } });
    await running.rest.workloads.get(vm);

    // The Secret is updated with the rotated secret; kubelet swaps the volume's ..data link.
    const issued = await admin.graphql.serviceAccounts.rotateSecret(clientId);
    await writeCredentialsFile(file, issued);
    await volume.update({ 'credentials.json': await readFile(file, 'utf8') });

    await sleep(LIFETIME_SECONDS * 1000 + 100);
    expect((await running.rest.workloads.get(vm)).id).toBe(vm);
    expect(running.tokens.stats).toMatchObject({ credentialReloads: 1, tokenRequests: 3 });
  });

  it('fails clearly when the secret was rotated and nobody wrote the new one down', async () => {
    const { file, clientId } = await createAccountFile(admin, kit.dir, 'rotated-away', [adminRole]);
    const running = await kit.client({ env: { PAW_CREDENTIALS_FILE: file } });
    await running.rest.workloads.get(vm);
    await admin.graphql.serviceAccounts.rotateSecret(clientId); // the new secret is dropped
    await sleep(LIFETIME_SECONDS * 1000 + 100);
    const error = await running.rest.workloads.get(vm).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toContain(`credentials file ${file}`);
    expect((error as Error).message).toContain('rotated');
  });
});

describe('an early token refresh that fails', () => {
  it('keeps using the current token until it really expires', async () => {
    const kit = await startPlatformTestKit({ workloads: 5, seed: 22, tokenLifetimeSeconds: 100 });
    try {
      let skewMs = 0; // the client's clock, moved forward to inside the refresh margin
      const client = await kit.client({
        now: () => Date.now() + skewMs,
        env: { PAW_PLATFORM_RETRY_BASE_DELAY_MS: '10' },
      });
      const vm = kit.sim.fixtures().workloads.samples.vsphereVm ?? '';
      await client.rest.workloads.get(vm);
      skewMs = 95_000; // refresh is due (margin: a tenth of 100 s), expiry is not
      await kit.control('PUT', '/_sim/faults', {
        operations: { createClientToken: { errorRate: 1, errorStatuses: [503] } },
      });
      expect((await client.rest.workloads.get(vm)).id).toBe(vm);
      expect(client.tokens.stats.tokenRequests).toBe(2);
      expect(kit.logs.text()).toContain('could not refresh the access token early');
      skewMs = 101_000; // now it has expired, and no new token can be had
      await expect(client.rest.workloads.get(vm)).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      await kit.close();
    }
  });
});
