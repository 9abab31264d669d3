#!/usr/bin/env node
// The copy-paste ratchet of `npm run lint`: counts the duplicated blocks in src/ (TypeScript and
// Lua, as jscpd finds them: at least 50 tokens alike; jscpd 4, pure JavaScript: 5.x ships per-platform binaries, some of them unpublished, which left `npm ci` refusing the lock) and fails when there are more than the
// committed baseline (copy-paste-baseline.json) allows. The aim is "no new ones", not a number:
// the blocks counted in the baseline were read and judged not worth merging. When a change
// removes some, `--update` lowers the baseline to the new count (it refuses to raise it: a new
// copy is merged into one home, or, if it truly must stay, the baseline is raised by hand in a
// commit that says why).
//
// Usage: node bin/copy-paste-ratchet.mjs [--update]
// Exit codes: 0 at or below the baseline; 1 above it (the new blocks are listed), or jscpd failed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const baselineFile = join(root, 'copy-paste-baseline.json');
// jscpd 4 exports no subpath: its command is run from where npm installs it.
const jscpd = join(root, 'node_modules', 'jscpd', 'bin', 'jscpd');

const output = mkdtempSync(join(tmpdir(), 'paw-jscpd-'));
let report;
try {
  const run = spawnSync(
    process.execPath,
    [
      jscpd,
      'src',
      '--format',
      'typescript,lua',
      '--reporters',
      'json',
      '--output',
      output,
      '--silent',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (run.status !== 0) {
    process.stderr.write(`copy-paste ratchet: jscpd failed (exit ${run.status})\n${run.stderr}`);
    process.exit(1);
  }
  report = JSON.parse(readFileSync(join(output, 'jscpd-report.json'), 'utf8'));
} finally {
  rmSync(output, { recursive: true, force: true });
}

const blocks = report.duplicates.map(
  (clone) =>
    `src/${clone.firstFile.name}:${clone.firstFile.start}-${clone.firstFile.end} = ` +
    `src/${clone.secondFile.name}:${clone.secondFile.start}-${clone.secondFile.end}`,
);
const count = blocks.length;
const baseline = JSON.parse(readFileSync(baselineFile, 'utf8')).duplicatedBlocks;

if (process.argv.includes('--update')) {
  if (count > baseline) {
    process.stderr.write(
      `copy-paste ratchet: ${count} duplicated blocks, more than the baseline's ${baseline}: ` +
        'merge the new copy into one home; --update only lowers the baseline\n',
    );
    process.exit(1);
  }
  writeFileSync(baselineFile, `${JSON.stringify({ duplicatedBlocks: count }, null, 2)}\n`);
  process.stdout.write(`copy-paste ratchet: baseline ${baseline} -> ${count}\n`);
} else if (count > baseline) {
  process.stderr.write(
    `copy-paste ratchet: ${count} duplicated blocks in src/, more than the ${baseline} of ` +
      'copy-paste-baseline.json. One of these is new: give it one home and call it from both ' +
      `places.\n  ${blocks.join('\n  ')}\n`,
  );
  process.exit(1);
} else if (count < baseline) {
  process.stdout.write(
    `copy-paste ratchet: ${count} duplicated blocks, fewer than the baseline's ${baseline}: ` +
      'lower it with `node bin/copy-paste-ratchet.mjs --update`\n',
  );
}
