/**
 * A workload name pattern of a snapshot definition (`targets.namePattern`): a glob where `*`
 * matches any run of characters and `?` exactly one, compared case-insensitively with the whole
 * name (`prod-*` matches `PROD-sql-01`, not `preprod-sql-01`). Compiled here so that validation
 * and the processor that resolves targets agree.
 */
export function compileNamePattern(pattern: string): RegExp {
  let source = '';
  for (const character of pattern) {
    if (character === '*') source += '.*';
    else if (character === '?') source += '.';
    else source += character.replace(/[\\^$.+()[\]{}|]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'is');
}

/** Whether `name` matches any of `patterns` (a single pattern or a list of them). */
export function matchesNamePattern(name: string, patterns: string | readonly string[]): boolean {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  return list.some((pattern) => compileNamePattern(pattern).test(name));
}
