import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPaw } from '../testkit/paw-process.js';

/** A secret-looking value, to be sure no message repeats what the file holds. */
const PASTED_SECRET = 'pasted-secret-9f8e7d6c5b4a';

/**
 * The credentials file as an operator may get it wrong, run as a real `paw` process: too large,
 * a secret pasted into the token address, a token address that is not http(s). Each is refused
 * with exit 2, naming the file and the fix, and never repeating a value from the file.
 */
describe('a credentials file paw refuses', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-credentials-refusals-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function pawWith(content: string | { size: number }) {
    const file = join(dir, 'sa.json');
    if (typeof content === 'string') await writeFile(file, content, { mode: 0o600 });
    else {
      await writeFile(file, `{"client_secret": "${PASTED_SECRET}", "padding": "`, { mode: 0o600 });
      await truncate(file, content.size);
    }
    const result = await runPaw(['workloads', 'list'], {
      cwd: dir,
      env: { PAW_CREDENTIALS_FILE: file },
    });
    return { ...result, file };
  }

  function credentials(accessTokenUri: string): string {
    return JSON.stringify({
      client_id: 'client|11111111-2222-4333-8444-555555555555',
      client_secret: 'the-secret-value',
      access_token_uri: accessTokenUri,
    });
  }

  it('refuses a 50 MB file, naming the file and the cap, without reading or repeating it', async () => {
    const result = await pawWith({ size: 50 * 1024 * 1024 });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `${result.file} (50 MiB) is more than 64 KiB, the most paw reads from a credentials file`,
    );
    expect(result.stderr).not.toContain(PASTED_SECRET);
  });

  it('never repeats a token address that is not a URL (a secret pasted in the wrong field)', async () => {
    const result = await pawWith(credentials(PASTED_SECRET));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`${result.file}: access_token_uri is not a URL`);
    expect(result.stderr).not.toContain(PASTED_SECRET);
    expect(result.stderr).not.toContain('the-secret-value');
  });

  it.each([
    ['file:', 'file:///etc/paw/api/client_token'],
    ['javascript:', 'javascript:alert(1)//api/client_token'],
  ])('refuses a %s token address as a usage error, not a crash', async (_scheme, address) => {
    const result = await pawWith(credentials(address));
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `${result.file}: access_token_uri must be an https:// (or http://) address`,
    );
    expect(result.stderr).not.toContain(address);
  });
});
