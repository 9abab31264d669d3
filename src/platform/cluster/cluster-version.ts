/** The first cluster software version that accepts personal-access-token sessions (spec 5.6). */
export const PAT_MINIMUM_VERSION = '9.6.0';

/**
 * Compares dotted versions numerically (`9.10.0` > `9.6.1`); missing parts count as 0 and a
 * suffix such as `-p3` or `b123` after a part is ignored. Negative, zero or positive like `sort`.
 */
function compareVersions(left: string, right: string): number {
  const a = numericParts(left);
  const b = numericParts(right);
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}

function numericParts(version: string): number[] {
  return version
    .trim()
    .split('.')
    .map((part) => Number.parseInt(part, 10))
    .map((part) => (Number.isFinite(part) ? part : 0));
}

/** Whether a cluster runs software recent enough for personal-access-token sessions. */
export function supportsPersonalAccessTokens(version: string): boolean {
  return compareVersions(version, PAT_MINIMUM_VERSION) >= 0;
}
