import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's chromium; `.ci/run` installs it. */
const CHROMIUM_PATH = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether browser tests can run here. In CI (`CI` set) a missing chromium is a failure with the
 * fix, never a silent skip; on a developer's machine the tests are skipped with a loud message.
 */
export function browserAvailability(): { available: boolean; reason?: string } {
  if (existsSync(CHROMIUM_PATH)) return { available: true };
  const reason = `${CHROMIUM_PATH} is missing: install it (Debian: apt-get install -y chromium; .ci/run does)`;
  if (process.env['CI'] !== undefined && process.env['CI'] !== '') {
    throw new Error(`browser tests must run in CI, but ${reason}`);
  }
  process.stderr.write(`\n*** SKIPPING the dashboard browser tests: ${reason} ***\n\n`);
  return { available: false, reason };
}

/** Launches Debian's chromium headless, driven by playwright-core. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
}
