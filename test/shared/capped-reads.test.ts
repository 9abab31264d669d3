import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
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

/** A file that never ends: every reader must stop at its cap instead of filling the memory. */
const ENDLESS = '/dev/zero';

/**
 * Every small file paw reads goes through one capped reader: a file that never ends, or one far
 * larger than its kind ever is, is refused naming the file and the cap, without reading it all.
 */
describe('every file paw reads has a cap', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paw-capped-reads-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function settingsWith(env: Record<string, string>) {
    return (await loadSettings({ cwd: dir, env })).settings;
  }

  it('the credentials file', async () => {
    await expect(readCredentialsFile(ENDLESS)).rejects.toThrow(
      new UsageError(
        `${ENDLESS} is more than 64 KiB, the most paw reads from a credentials file; check that the setting names the right file`,
      ),
    );
  });

  it('a Redis password file', async () => {
    const settings = await settingsWith({ PAW_REDIS_PASSWORD_FILE: ENDLESS });
    expect(() => redisConnectionOptions(settings.redis)).toThrow(
      /^redis\.passwordFile \(PAW_REDIS_PASSWORD_FILE\): \/dev\/zero is more than 64 KiB, the most paw reads from a password file/,
    );
  });

  it("the ops server's token file", async () => {
    const settings = await settingsWith({ PAW_OPS_TOKEN_FILE: ENDLESS });
    expect(() => new OpsAccess(settings.http, silentLogger(), '127.0.0.1')).toThrow(
      /\/dev\/zero is more than 1 MiB, the most paw reads from an ops credentials file/,
    );
  });

  it('a YAML file (job definitions, settings)', async () => {
    await expect(readYamlFile(ENDLESS)).rejects.toThrow(
      /\/dev\/zero is more than 4 MiB, the most paw reads from a YAML file/,
    );
  });

  it('a rotation journal', async () => {
    const sink = join(dir, 'sink.json');
    await symlink(ENDLESS, journalPathOf(sink));
    await expect(readJournal(sink, { clientId: 'client|x' }, silentLogger())).rejects.toThrow(
      /\.sink\.json\.rotation is more than 64 KiB, the most paw reads from a rotation journal/,
    );
  });

  it("a webhook's URL file", async () => {
    const sender = new WebhookSender({
      timeoutMs: 1_000,
      allowInsecureHttp: false,
      userAgent: 'paw-test',
    });
    await expect(
      sender.resolveUrl({
        urlFile: ENDLESS,
        allowInternalAddress: false,
        on: 'failure',
        format: 'json',
      }),
    ).rejects.toThrow(
      /\/dev\/zero is more than 64 KiB, the most paw reads from a webhook URL file/,
    );
  });

  it('a file that is only large (a regular file) is refused from its size, named', async () => {
    const file = join(dir, 'big.json');
    await writeFile(file, `{"client_secret": "${'s'.repeat(100 * 1024)}"}`);
    await expect(readCredentialsFile(file)).rejects.toThrow(
      /big\.json \(100\.0 KiB\) is more than 64 KiB, the most paw reads from a credentials file/,
    );
  });
});
