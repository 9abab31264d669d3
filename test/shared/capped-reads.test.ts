import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../src/config/load-settings.js';
import { UsageError } from '../../src/shared/usage-error.js';
import { silentLogger } from '../../src/shared/logger.js';
import { OpsAccess } from '../../src/ops/auth/ops-access.js';
import { WebhookSender } from '../../src/job-kinds/notify/webhook-sender.js';
import { readCredentialsFile } from '../../src/platform/auth/credentials-file.js';
import { journalPathOf, readJournal } from '../../src/job-kinds/rotate-secret/rotation-journal.js';
import { redisConnectionOptions } from '../../src/redis/redis-options.js';
import { readYamlFile } from '../../src/shared/yaml-file.js';

/**
 * Every small file paw reads goes through one capped reader: a file far larger than its kind
 * ever is, is refused from its size, naming the file and the cap, before a byte is read; and
 * anything but a regular file (a FIFO, which would block the reader until someone writes to it;
 * a device such as /dev/zero, which never ends; a folder) is refused at once, naming the file
 * and what it is.
 */
describe('every file paw reads', () => {
  let dir: string;
  let fifo: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-capped-reads-'));
    fifo = join(dir, 'a.fifo');
    execFileSync('mkfifo', [fifo]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function settingsWith(env: Record<string, string>) {
    return (await loadSettings({ cwd: dir, env })).settings;
  }

  /** A sparse file of `bytes`: large to the file system, nothing on the disk. */
  async function sparse(name: string, bytes: number): Promise<string> {
    const file = join(dir, name);
    await writeFile(file, '');
    await truncate(file, bytes);
    return file;
  }

  const sender = new WebhookSender({
    timeoutMs: 1_000,
    allowInsecureHttp: false,
    userAgent: 'paw-test',
  });

  /** Each reader, as paw calls it: a promise that settles with what the read threw. */
  const READERS: Record<string, (file: string) => Promise<unknown>> = {
    'the credentials file': (file) => readCredentialsFile(file),
    'a Redis password file': async (file) =>
      redisConnectionOptions((await settingsWith({ PAW_REDIS_PASSWORD_FILE: file })).redis),
    'a Redis CA file': async (file) =>
      redisConnectionOptions((await settingsWith({ PAW_REDIS_CA_FILE: file })).redis),
    "the ops server's token file": async (file) =>
      new OpsAccess(
        (await settingsWith({ PAW_OPS_TOKEN_FILE: file })).http,
        silentLogger(),
        '127.0.0.1',
      ),
    'a YAML file (job definitions, settings)': (file) => readYamlFile(file),
    "a webhook's URL file": (file) =>
      sender.resolveUrl({
        urlFile: file,
        allowInternalAddress: false,
        on: 'failure',
        format: 'json',
      }),
  };

  for (const [what, read] of Object.entries(READERS)) {
    it(`${what}: a FIFO, a device and a folder are refused at once, naming the file and what it is`, async () => {
      // A FIFO with no writer: a blocking open would wait here forever (and, read
      // synchronously, stop the whole process).
      await expect(read(fifo)).rejects.toThrow(
        `${fifo} is a named pipe (FIFO), not a regular file`,
      );
      await expect(read('/dev/zero')).rejects.toThrow(
        '/dev/zero is a character device, not a regular file',
      );
      await expect(read(dir)).rejects.toThrow(`${dir} is a folder, not a regular file`);
    });
  }

  it('a rotation journal in the place of a FIFO, named', async () => {
    const sink = join(dir, 'sink.json');
    await symlink(fifo, journalPathOf(sink));
    await expect(readJournal(sink, { clientId: 'client|x' }, silentLogger())).rejects.toThrow(
      /\.sink\.json\.rotation is a named pipe \(FIFO\), not a regular file/,
    );
  });

  it('a file over its cap is refused from its size, naming the file and the cap', async () => {
    const big = await sparse('big.json', 100 * 1024);
    await expect(readCredentialsFile(big)).rejects.toThrow(
      new UsageError(
        `${big} (100 KiB) is more than 64 KiB, the most paw reads from a credentials file; check that the setting names the right file`,
      ),
    );
    const password = await sparse('password', 100 * 1024);
    await expect(READERS['a Redis password file']?.(password)).rejects.toThrow(
      /^redis\.passwordFile \(PAW_REDIS_PASSWORD_FILE\): .*password \(100 KiB\) is more than 64 KiB, the most paw reads from a password file/,
    );
    const tokens = await sparse('tokens', 2 * 1024 * 1024);
    await expect(READERS["the ops server's token file"]?.(tokens)).rejects.toThrow(
      /tokens \(2 MiB\) is more than 1 MiB, the most paw reads from an ops credentials file/,
    );
    const yaml = await sparse('jobs.yaml', 5 * 1024 * 1024);
    await expect(readYamlFile(yaml)).rejects.toThrow(
      /jobs\.yaml \(5 MiB\) is more than 4 MiB, the most paw reads from a YAML file/,
    );
    const url = await sparse('url', 100 * 1024);
    await expect(READERS["a webhook's URL file"]?.(url)).rejects.toThrow(
      /url \(100 KiB\) is more than 64 KiB, the most paw reads from a webhook URL file/,
    );
  });
});
