import { readFileSync } from 'node:fs';

/** paw's version, from package.json (one level above `src/` and `dist/` alike). */
export const PAW_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
