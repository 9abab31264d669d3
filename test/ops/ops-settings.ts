import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/load-settings.js';
import type { Settings } from '../../src/config/settings-schema.js';
import { testRedisUrl, uniquePrefix } from '../testkit/redis-connection.js';

/**
 * Settings for an ops test: the test run's Redis under a prefix of its own, the ops server on a
 * free port, plus any PAW_* variables given (loaded through the real settings loader).
 */
export async function opsSettings(
  label: string,
  env: Readonly<Record<string, string>> = {},
): Promise<Settings> {
  const cwd = await mkdtemp(join(tmpdir(), 'paw-ops-'));
  const { settings } = await loadSettings({
    cwd,
    env: {
      PAW_REDIS_URL: testRedisUrl(),
      PAW_REDIS_PREFIX: uniquePrefix(label),
      ...env,
    },
  });
  return settings;
}
