import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/ops/auth/password-hash.js';
import type { OpsServer } from '../../../src/ops/ops-server.js';
import { eventually } from '../../testkit/eventually.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { startTestOpsServer } from '../test-ops-server.js';

const TOKEN = 'ops-token-0c4f8a2e9b1d7f35';
const CI_TOKEN = 'ci-token-7e1a5c9f3b2d8e40';
const PASSWORD = 'alice-password-8b2e4f6a';

/** Writes `text` to `file` and moves its modification time on, so a re-read cannot miss it. */
let clock = Math.floor(Date.now() / 1000);
async function rewrite(file: string, text: string): Promise<void> {
  await writeFile(file, text, { mode: 0o600 });
  clock += 10;
  await utimes(file, clock, clock);
}

async function status(url: string, authorization: string): Promise<number> {
  const response = await request(url, { headers: { authorization } });
  await response.body.dump();
  return response.statusCode;
}

/** Long enough for any re-read; a wait that runs out names what it waited for. */
const REREAD = { timeoutMs: 20_000 };

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * The ops server's token and users files fail closed: emptying, commenting out or deleting one
 * revokes what it held (and says so in the log); a token too short to be a secret is refused,
 * naming its line and never the token; a `name:token` line names who used it.
 */
describe('the ops token and users files', () => {
  const logs = captureLogs('info');
  let dir: string;
  let server: OpsServer;
  let tokens: string;
  let users: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-ops-files-'));
    tokens = join(dir, 'tokens');
    users = join(dir, 'users');
    await rewrite(tokens, `${TOKEN}\n`);
    await rewrite(users, `alice:${await hashPassword(PASSWORD)}\n`);
    server = await startTestOpsServer(
      'ops-files',
      {
        PAW_OPS_TOKEN_FILE: tokens,
        PAW_OPS_USERS_FILE: users,
        PAW_HTTP_QUEUES_READ_ONLY: 'false',
      },
      logs.logger,
    );
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('revokes every token when the token file is emptied, commented out or deleted, and logs it', async () => {
    const runs = `${server.url}/api/runs`;
    expect(await status(runs, `Bearer ${TOKEN}`)).toBe(200);

    await rewrite(tokens, '');
    await eventually(
      'the emptied token file to revoke the token',
      async () => {
        return (await status(runs, `Bearer ${TOKEN}`)) === 401;
      },
      REREAD,
    );
    expect(logs.text()).toMatch(/PAW_OPS_TOKEN_FILE.*holds no credential.*revoked/);

    await rewrite(tokens, `${TOKEN}\n`);
    await eventually(
      'the restored token file to let the token in',
      async () => {
        return (await status(runs, `Bearer ${TOKEN}`)) === 200;
      },
      REREAD,
    );

    await rewrite(tokens, `# ${TOKEN}\n`);
    await eventually(
      'the commented-out token to be revoked',
      async () => {
        return (await status(runs, `Bearer ${TOKEN}`)) === 401;
      },
      REREAD,
    );

    await rewrite(tokens, `${TOKEN}\n`);
    await eventually(
      'the token to be back',
      async () => {
        return (await status(runs, `Bearer ${TOKEN}`)) === 200;
      },
      REREAD,
    );
    await unlink(tokens);
    await eventually(
      'the deleted token file to revoke the token',
      async () => {
        return (await status(runs, `Bearer ${TOKEN}`)) === 401;
      },
      REREAD,
    );
    expect(logs.text()).toMatch(/PAW_OPS_TOKEN_FILE.*cannot be read \(ENOENT\).*revoked/);
    expect(logs.text()).not.toContain(TOKEN);

    await rewrite(tokens, `${TOKEN}\n`);
    await eventually(
      'the token file put back to let the token in',
      async () => {
        return (await status(runs, `Bearer ${TOKEN}`)) === 200;
      },
      REREAD,
    );
  });

  it('re-reads a token file rewritten with its old modification time: the removed token stops working', async () => {
    const runs = `${server.url}/api/runs`;
    await rewrite(tokens, `${TOKEN}\n${CI_TOKEN}\n`);
    await eventually(
      'the second token to be read',
      async () => (await status(runs, `Bearer ${CI_TOKEN}`)) === 200,
      REREAD,
    );
    // Let any re-read that could race the rewrite happen first: the rewrite is then told
    // apart by its metadata alone, not by the file still being read every time.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await status(runs, `Bearer ${CI_TOKEN}`)).toBe(200);
    const before = await stat(tokens);
    // The same length (the removed token's line replaced by a comment of its length), and the
    // old mtime set back: only the change time tells the content changed.
    await writeFile(tokens, `${TOKEN}\n#${'x'.repeat(CI_TOKEN.length - 1)}\n`);
    await utimes(tokens, before.atime, before.mtime);
    expect((await stat(tokens)).size).toBe(before.size);
    expect((await stat(tokens)).mtimeMs).toBe(before.mtimeMs);
    await eventually(
      'the removed token to stop working',
      async () => (await status(runs, `Bearer ${CI_TOKEN}`)) === 401,
      REREAD,
    );
    expect(await status(runs, `Bearer ${TOKEN}`)).toBe(200);
  });

  it('refuses a FIFO put in place of the token file at run time, naming it, and /healthz still answers', async () => {
    const runs = `${server.url}/api/runs`;
    await rewrite(tokens, `${TOKEN}\n`);
    await eventually(
      'the token',
      async () => (await status(runs, `Bearer ${TOKEN}`)) === 200,
      REREAD,
    );
    await unlink(tokens);
    execFileSync('mkfifo', [tokens]);
    // Should paw's read block on the FIFO (the whole process, this test with it, waits for a
    // writer), this writer frees the read after 5 s by writing the token once: the token then
    // works, and the test fails instead of hanging. `timeout` ends it whatever happens.
    const rescuer = spawn(
      'timeout',
      ['60', 'sh', '-c', `sleep 5; printf '%s\n' "$1" > "$2"`, 'sh', TOKEN, tokens],
      { stdio: 'ignore' },
    );
    try {
      // One request: the file's identity changed, so this one reads it.
      expect(await status(runs, `Bearer ${TOKEN}`)).toBe(401);
      expect(logs.text()).toMatch(
        /PAW_OPS_TOKEN_FILE.*tokens is a named pipe \(FIFO\), not a regular file.*revoked/,
      );
      expect(await status(`${server.url}/healthz`, '')).toBe(200);
    } finally {
      rescuer.kill();
      await unlink(tokens);
      await rewrite(tokens, `${TOKEN}\n`);
    }
    await eventually(
      'the token back',
      async () => (await status(runs, `Bearer ${TOKEN}`)) === 200,
      REREAD,
    );
  });

  it('revokes every user when the users file is emptied or deleted', async () => {
    const runs = `${server.url}/api/runs`;
    const alice = basic('alice', PASSWORD);
    expect(await status(runs, alice)).toBe(200);
    await rewrite(users, '# nobody\n');
    await eventually(
      'the emptied users file to revoke alice',
      async () => {
        return (await status(runs, alice)) === 401;
      },
      REREAD,
    );
    await rewrite(users, `alice:${await hashPassword(PASSWORD)}\n`);
    await eventually('alice to be back', async () => (await status(runs, alice)) === 200, REREAD);
    await unlink(users);
    await eventually(
      'the deleted users file to revoke alice',
      async () => {
        return (await status(runs, alice)) === 401;
      },
      REREAD,
    );
    expect(logs.text()).toMatch(/PAW_OPS_USERS_FILE.*cannot be read \(ENOENT\).*revoked/);
    expect(logs.text()).not.toContain(PASSWORD);
  });

  it('refuses, on a re-read, a token shorter than 16 characters, naming its line and keeping the others', async () => {
    const runs = `${server.url}/api/runs`;
    await rewrite(tokens, `# the ops tokens\n${TOKEN}\nx\n`);
    await eventually(
      'the re-read to refuse the one-character token',
      async () => {
        // The file is re-read when a request needs it.
        await status(runs, `Bearer ${TOKEN}`);
        return logs.text().includes('line 3');
      },
      REREAD,
    );
    expect(await status(runs, 'Bearer x')).toBe(401);
    expect(await status(runs, `Bearer ${TOKEN}`)).toBe(200);
    const refusal = logs.records().find((record) => String(record['msg']).includes('line 3'));
    expect(String(refusal?.['msg'])).toMatch(/shorter than 16 characters/);
  });

  it('records a `name:token` line’s name as the user of what the token did', async () => {
    await rewrite(tokens, `${TOKEN}\nci-pipeline:${CI_TOKEN}\n`);
    const pause = `${server.url}/queues/api/queues/snapshot/pause`;
    const paused = await eventually(
      'the named token to be read',
      async () => {
        const response = await request(pause, {
          method: 'PUT',
          headers: { authorization: `Bearer ${CI_TOKEN}` },
        });
        await response.body.dump();
        return response.statusCode === 200;
      },
      REREAD,
    );
    expect(paused).toBe(true);
    const resume = await request(`${server.url}/queues/api/queues/snapshot/resume`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    await resume.body.dump();
    const actions = (await (
      await request(`${server.url}/api/actions`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      })
    ).body.json()) as { user: string; via: string; target: string }[];
    expect(actions.find((entry) => entry.target.endsWith('/snapshot/pause'))).toMatchObject({
      user: 'ci-pipeline',
      via: 'bearer',
    });
    // A plain token line is still accepted, under a name that says it has none.
    expect(actions.find((entry) => entry.target.endsWith('/snapshot/resume'))).toMatchObject({
      user: 'bearer token',
      via: 'bearer',
    });
  });
});

describe('the ops server at start', () => {
  it('refuses a token shorter than 16 characters, naming the file and line, never the token', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paw-ops-short-'));
    try {
      await rewrite(join(dir, 'tokens'), `# ops\n${TOKEN}\nshort-tok\n`);
      const logs = captureLogs();
      const started = startTestOpsServer(
        'ops-short',
        { PAW_OPS_TOKEN_FILE: join(dir, 'tokens') },
        logs.logger,
      );
      await expect(started).rejects.toThrow(
        /PAW_OPS_TOKEN_FILE.*tokens line 3: a token shorter than 16 characters/,
      );
      await expect(started).rejects.not.toThrow(/short-tok/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
