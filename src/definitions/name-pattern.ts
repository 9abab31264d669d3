/**
 * A workload name pattern of a snapshot definition (`targets.namePattern`): a glob where `*`
 * matches any run of characters and `?` exactly one, compared case-insensitively with the whole
 * name (`prod-*` matches `PROD-sql-01`, not `preprod-sql-01`). Validation and the processor that
 * resolves targets both call this file, so they agree.
 *
 * Matching never backtracks more than once per star: a regular expression built from
 * `*a*a*a*a*b` took seconds per name on the worker's event loop; this takes at most
 * (pattern length × name length) steps.
 */

/** The longest pattern accepted (definitions validate it): a name pattern is a short thing. */
export const MAX_NAME_PATTERN_LENGTH = 256;

/** Whether `name` matches any of `patterns` (a single pattern or a list of them). */
export function matchesNamePattern(name: string, patterns: string | readonly string[]): boolean {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  const folded = fold(name);
  return list.some((pattern) => globMatches(fold(pattern), folded));
}

/** Code points, case-folded, so that `?` takes one character even outside the BMP. */
function fold(text: string): string[] {
  return [...text.toLowerCase()];
}

/**
 * The greedy glob match with one remembered star: on a mismatch, the last star takes one more
 * character and matching resumes after it. Earlier stars never need to be revisited, because a
 * later star can absorb anything they would have.
 */
function globMatches(pattern: readonly string[], name: readonly string[]): boolean {
  let p = 0;
  let n = 0;
  let starAt = -1;
  let resumeAt = 0;
  while (n < name.length) {
    const token = pattern[p];
    if (token === '*') {
      starAt = p;
      resumeAt = n;
      p += 1;
    } else if (token !== undefined && (token === '?' || token === name[n])) {
      p += 1;
      n += 1;
    } else if (starAt >= 0) {
      resumeAt += 1;
      n = resumeAt;
      p = starAt + 1;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p += 1;
  return p === pattern.length;
}
