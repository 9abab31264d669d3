/** How one check of `paw doctor` ended. */
export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One line of the doctor's checklist. */
export interface CheckResult {
  /** Stable, for scripts (`--json`): `credentials`, `graphql.snapshot`, `rest.route.getWorkload`. */
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** What was found, in a sentence. */
  readonly detail: string;
  /** What to do about a failure or a warning: a setting, a role, a flag. */
  readonly fix?: string | undefined;
  /** Whether a failure here stops paw's jobs from running as configured (it decides the exit code). */
  readonly blocks: boolean;
}

export function check(
  id: string,
  title: string,
  status: CheckStatus,
  detail: string,
  options: { readonly fix?: string | undefined; readonly blocks?: boolean } = {},
): CheckResult {
  return { id, title, status, detail, fix: options.fix, blocks: options.blocks ?? true };
}
