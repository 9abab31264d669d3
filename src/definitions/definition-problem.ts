import { relative } from 'node:path';
import { UsageError } from '../shared/usage-error.js';

/** One thing wrong with a job definition, located precisely enough to fix it. */
export interface DefinitionProblem {
  readonly file: string;
  /** 1-based; absent when the problem is about the file or folder as a whole. */
  readonly line?: number | undefined;
  readonly column?: number | undefined;
  /** Dotted path inside the definition (`schedule.timezone`), or `(definition)` for the whole. */
  readonly path: string;
  readonly message: string;
  readonly fix: string;
}

/** `jobs/a.yaml:3:13: schedule.timezone: "Europe/Berln" is not ...; fix: did you mean ...` */
export function formatProblem(problem: DefinitionProblem): string {
  const file = displayPath(problem.file);
  const where =
    problem.line === undefined
      ? file
      : `${file}:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}`;
  return `${where}: ${problem.path}: ${problem.message}; fix: ${problem.fix}`;
}

/**
 * The job definitions are invalid. Carries every problem found (not just the first), so one run
 * of `paw validate` or of a failed start-up shows them all.
 */
export class InvalidDefinitionsError extends UsageError {
  constructor(readonly problems: readonly DefinitionProblem[]) {
    super(
      `${problems.length} problem${problems.length === 1 ? '' : 's'} in the job definitions:\n  ` +
        problems.map(formatProblem).join('\n  '),
    );
  }
}

/** `file` relative to the working directory when it lies inside it, else as given. */
export function displayPath(file: string): string {
  const relativePath = relative(process.cwd(), file);
  return relativePath === '' || relativePath.startsWith('..') ? file : relativePath;
}
