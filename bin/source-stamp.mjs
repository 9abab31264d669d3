// What a build of paw was compiled from: every file under src/ (its TypeScript and the .lua
// files copied beside the JavaScript) and the files that steer tsc, by path, size and
// modification time. bin/build.mjs writes it into the compiled folder when it succeeds;
// bin/paw.js runs dist/ only when the stamp there is the sources' stamp now, so a checkout, a
// pull or an edit since the build can never run stale JavaScript. Reading times and sizes (no
// file contents) keeps the check to a few milliseconds.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The file the stamp is kept in, inside the compiled folder. */
export const STAMP_FILE = '.source-stamp';

const STEERING = ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'bin/build.mjs'];

/** The stamp of the sources under `root` (the repository) as they are now. */
export function sourceStamp(root) {
  const hash = createHash('sha1');
  const files = [
    ...STEERING.map((path) => join(root, path)),
    ...readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name))
      .sort(),
  ];
  for (const file of files) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(root, file)}\0${size}\0${mtimeMs}\n`);
  }
  return hash.digest('hex');
}
