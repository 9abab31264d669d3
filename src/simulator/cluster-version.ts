/** Personal access token sessions need this cluster software version or later. */
export const PAT_MINIMUM_VERSION = '9.6.0';

/** Whether `version` is `minimum` or later, comparing dotted numbers part by part. */
export function versionAtLeast(version: string, minimum: string): boolean {
  const a = version.split('.').map(Number);
  const b = minimum.split('.').map(Number);
  for (let index = 0; index < Math.max(a.length, b.length); index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference > 0;
  }
  return true;
}
