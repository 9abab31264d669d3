/** `rel` values that name a job-status link, best first. */
const STATUS_RELS = ['jobStatus', 'status', 'self'] as const;

/** Single-string fields that may hold the link, best first. */
const LINK_FIELDS = ['jobStatusUrl', 'jobStatusLink', 'link', 'href'] as const;

/**
 * The job-status link in a snapshot trigger's `metadata`, in any of the shapes the platform has
 * used: `jobStatusUrl`, `jobStatusLink`, `link` or `href` as a string (or as `{ href }`), or a
 * `links` array whose entry has rel `jobStatus`, `status` or `self` (case-insensitive). Returns
 * the raw link (absolute or relative) or undefined; resolving and checking its origin is the
 * caller's job.
 */
export function extractJobStatusLink(metadata: unknown): string | undefined {
  if (!isRecord(metadata)) return undefined;
  for (const field of LINK_FIELDS) {
    const value = metadata[field];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
    if (isRecord(value) && typeof value['href'] === 'string' && value['href'].trim() !== '') {
      return value['href'].trim();
    }
  }
  return linkFromList(metadata['links']);
}

/** The status link among `links: [{ href, rel }]` (also what a job record itself carries). */
export function linkFromList(links: unknown): string | undefined {
  if (!Array.isArray(links)) return undefined;
  for (const rel of STATUS_RELS) {
    for (const entry of links) {
      if (!isRecord(entry)) continue;
      const href = entry['href'];
      const entryRel = entry['rel'];
      if (
        typeof href === 'string' &&
        href.trim() !== '' &&
        typeof entryRel === 'string' &&
        entryRel.toLowerCase() === rel.toLowerCase()
      ) {
        return href.trim();
      }
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
