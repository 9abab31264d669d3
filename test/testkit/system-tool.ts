import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * Whether a system program a test drives (chromium, redis-sentinel, promtool, kubectl) is
 * installed. In CI (`CI` set) a missing one is a failure that names the fix, never a silent
 * skip; on a developer's machine the tests that need it are skipped with a loud message, so
 * `npm test` runs on a machine with only Node and redis-server.
 */
export function systemTool(
  command: string,
  install: string,
  what: string,
): { available: boolean; reason?: string } {
  if (isInstalled(command)) return { available: true };
  const reason = `${command} is missing: install it (${install}; .ci/run does)`;
  if (process.env['CI'] !== undefined && process.env['CI'] !== '') {
    throw new Error(`${what} must run in CI, but ${reason}`);
  }
  process.stderr.write(`\n*** SKIPPING ${what}: ${reason} ***\n\n`);
  return { available: false, reason };
}

function isInstalled(command: string): boolean {
  const candidates = isAbsolute(command)
    ? [command]
    : (process.env['PATH'] ?? '').split(delimiter).map((folder) => join(folder, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
