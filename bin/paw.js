#!/usr/bin/env node
// The `paw` executable of a checkout. It runs the compiled dist/ (built at `npm install` by the
// `prepare` script, or by `npm run build`) when that build is of the sources as they are now
// (bin/source-stamp.mjs), so that a command starts at once; otherwise it runs the TypeScript
// sources through tsx, exactly what is checked out, only slower, and says so on a terminal. No
// way runs a stale build. The container image runs dist/cli/main.js itself.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { STAMP_FILE, sourceStamp } from './source-stamp.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));

function builtStamp() {
  try {
    return readFileSync(new URL(`../dist/${STAMP_FILE}`, import.meta.url), 'utf8').trim();
  } catch {
    return undefined;
  }
}

if (builtStamp() === sourceStamp(root)) {
  await import('../dist/cli/main.js');
} else {
  if (process.stderr.isTTY) {
    process.stderr.write(
      'paw: dist/ is not a build of these sources; running them through tsx (slower to start). ' +
        '`npm run build` makes paw start at once again.\n',
    );
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/cli/main.ts');
}
