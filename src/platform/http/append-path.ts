/**
 * `base` + `path`, keeping any path prefix `base` has (a platform behind a reverse proxy at
 * `https://host/platform` keeps its `/platform`). `new URL(path, base)` would drop it.
 */
export function appendPath(base: URL, path: string): URL {
  return new URL(`${base.href.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
}
