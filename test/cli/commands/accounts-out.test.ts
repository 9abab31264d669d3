import { chmod, lstat, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startCliSimulator, type CliSimulator } from '../cli-simulator.js';

/** Where `paw accounts create|rotate --out` may write a new secret, and what it writes there. */
describe('paw accounts --out', () => {
  let t: CliSimulator;
  let role: string;

  beforeAll(async () => {
    t = await startCliSimulator();
    role = t.fixtures.roles.find((entry) => entry.name === 'Read Only Admin')?.id ?? '';
  });
  afterAll(() => t.close());

  const create = async (name: string, out: string, ...extra: string[]) =>
    t.paw(['accounts', 'create', '--name', name, '--role', role, '--out', out, '--json', ...extra]);

  it("refuses to overwrite another account's credentials file unless --force", async () => {
    const first = join(t.dir, 'first.json');
    expect((await create('first-account', first)).code).toBe(0);
    const before = await readFile(first, 'utf8');
    const refused = await create('second-account', first);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /holds the credentials of client\|.*paw will not overwrite it.*--force/,
    );
    expect(await readFile(first, 'utf8')).toBe(before);
    // Nothing was created on the platform for the refused call.
    const listed = json<{ name: string }[]>(await t.paw(['accounts', 'list', '--json', '--all']));
    expect(listed.map((account) => account.name)).not.toContain('second-account');

    const forced = await create('third-account', first, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    const rotatedOther = await t.paw([
      'accounts',
      'rotate',
      json<{ clientId: string }>(forced).clientId,
      '--out',
      join(t.dir, 'sa.json'), // the admin's own file: another account
    ]);
    expect(rotatedOther.code).toBe(2);
  });

  it('writes through a link to its target, and keeps the platform it called as the token address', async () => {
    const target = join(t.dir, 'target.json');
    const created = json<{ clientId: string }>(await create('linked-account', target));
    const link = join(t.dir, 'link.json');
    await symlink(target, link);
    await t.control('PUT', '/_sim/access-token-uri', {
      accessTokenUri: 'https://attacker.example/api/client_token',
    });
    try {
      const rotated = await t.paw([
        'accounts',
        'rotate',
        created.clientId,
        '--out',
        link,
        '--json',
      ]);
      expect(rotated.code, rotated.stderr).toBe(0);
      expect(rotated.stderr).toMatch(/named the token address https:\/\/attacker\.example/);
    } finally {
      await t.control('PUT', '/_sim/access-token-uri', { accessTokenUri: null });
    }
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    const written = JSON.parse(await readFile(target, 'utf8')) as { access_token_uri: string };
    expect(written.access_token_uri).toBe(`${t.sim.baseUrl}/api/client_token`);
  });

  it('warns when the credentials file can be read by others', async () => {
    const open = join(t.dir, 'open.json');
    await writeFile(open, JSON.stringify(t.sim.credentials));
    await chmod(open, 0o644);
    const result = await t.paw(['clusters', 'list', '--credentials', open]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/can be read by other users: chmod 600/);
  });
});
