import { chromium, type Browser } from 'playwright-core';
import { systemTool } from '../../testkit/system-tool.js';

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

/** Whether browser tests can run here (see systemTool: in CI a missing chromium fails). */
export function browserAvailability(): { available: boolean; reason?: string } {
  return systemTool(
    CHROMIUM_PATH,
    'Debian: apt-get install -y chromium',
    'the dashboard browser tests',
  );
}

/** Launches Debian's chromium headless, driven by playwright-core. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
}
