import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/ops/auth/password-hash.js';
import { PawMetrics } from '../../../src/ops/metrics/paw-metrics.js';
import { startOpsServer, type OpsServer } from '../../../src/ops/ops-server.js';
import { KubeletVolume } from '../../testkit/kubelet-volume.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { opsSettings } from '../ops-settings.js';

const OLD_TOKEN = 'ops-token-old-0a1b2c3d4e5f';
const NEW_TOKEN = 'ops-token-new-9f8e7d6c5b4a';
const OLD_METRICS = 'metrics-token-old-112233';
const NEW_METRICS = 'metrics-token-new-445566';

/**
 * The ops credentials in a Kubernetes Secret volume, updated as kubelet does it (a new
 * timestamped folder, `..data` renamed over the old one, the old folder deleted): the server
 * answers to the new credentials, and no longer to the old, without a restart.
 */
describe('ops credentials from a Secret volume', () => {
  const logs = captureLogs('info');
  let volume: KubeletVolume;
  let server: OpsServer;

  beforeAll(async () => {
    volume = await KubeletVolume.create({
      tokens: `${OLD_TOKEN}\n`,
      users: `alice:${await hashPassword('alice-old-pass')}\n`,
      'metrics-token': `${OLD_METRICS}\n`,
    });
    const settings = await opsSettings('mounted-credentials', {
      PAW_OPS_TOKEN_FILE: join(volume.dir, 'tokens'),
      PAW_OPS_USERS_FILE: join(volume.dir, 'users'),
      PAW_METRICS_TOKEN_FILE: join(volume.dir, 'metrics-token'),
    });
    const started = await startOpsServer({
      settings,
      logger: logs.logger,
      role: 'scheduler',
      version: '9.9.9',
      metrics: new PawMetrics({ processMetrics: false }),
      port: 0,
    });
    if (started === undefined) throw new Error('no ops server');
    server = started;
  });
  afterAll(() => server?.close());

  const status = async (path: string, authorization: string): Promise<number> => {
    const response = await request(`${server.url}${path}`, { headers: { authorization } });
    await response.body.dump();
    return response.statusCode;
  };
  const basic = (user: string, password: string) =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('answers to the new token, user and metrics token after the swap, and no longer to the old', async () => {
    expect(await status('/api/runs', `Bearer ${OLD_TOKEN}`)).toBe(200);
    expect(await status('/api/runs', basic('alice', 'alice-old-pass'))).toBe(200);
    expect(await status('/metrics', `Bearer ${OLD_METRICS}`)).toBe(200);

    await volume.update({
      tokens: `${NEW_TOKEN}\n`,
      users: `alice:${await hashPassword('alice-new-pass')}\n`,
      'metrics-token': `${NEW_METRICS}\n`,
    });

    expect(await status('/api/runs', `Bearer ${NEW_TOKEN}`)).toBe(200);
    expect(await status('/api/runs', `Bearer ${OLD_TOKEN}`)).toBe(401);
    expect(await status('/api/runs', basic('alice', 'alice-new-pass'))).toBe(200);
    expect(await status('/api/runs', basic('alice', 'alice-old-pass'))).toBe(401);
    expect(await status('/metrics', `Bearer ${NEW_METRICS}`)).toBe(200);
    expect(await status('/metrics', `Bearer ${OLD_METRICS}`)).toBe(401);
    for (const secret of [OLD_TOKEN, NEW_TOKEN, OLD_METRICS, NEW_METRICS]) {
      expect(logs.text()).not.toContain(secret);
    }
  });
});
