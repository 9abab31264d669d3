/**
 * How paw's definition schemas attach a fix to a problem and decide when a cross-field check
 * runs. describe-definition-issue.ts reads the fix back out of the issue.
 */

/**
 * Options for a custom zod check: its message and the fix that error messages add to it
 * (see describe-definition-issue.ts).
 */
export function problem(message: string, fix: string): { error: string; params: { fix: string } } {
  return { error: message, params: { fix } };
}

/**
 * Refinement option: run the check whenever the value is a mapping, even when some of its keys
 * already have problems, so that one `paw validate` lists every problem instead of revealing
 * them one round at a time. (The check must then read the value defensively.)
 */
export const evenWithOtherProblems = {
  when: (payload: { value: unknown }): boolean =>
    typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};

/** Refinement option: run the check only when the value has no problem of its own so far. */
export const onlyWithoutProblems = {
  when: (payload: { issues: readonly unknown[] }): boolean => payload.issues.length === 0,
};
