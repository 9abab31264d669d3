import { JOB_KINDS, type JobKind } from '../definitions/job-definition.js';
import { UsageError } from '../shared/usage-error.js';
import { closestMatch } from '../shared/closest-match.js';
import type { ProcessorFactories } from './processor-registry.js';

/**
 * The kinds a worker process runs: those asked for (`--kinds snapshot,sla-window`), or every kind
 * with a processor. A kind paw does not know, or one without a processor in this build, is a
 * UsageError that names the valid ones.
 */
export function resolveWorkerKinds(
  requested: readonly string[] | undefined,
  factories: ProcessorFactories,
): JobKind[] {
  const available = JOB_KINDS.filter((kind) => factories[kind] !== undefined);
  if (requested === undefined) {
    if (available.length === 0) throw new UsageError('no job kind has a processor in this build');
    return [...available];
  }
  if (requested.length === 0) {
    throw new UsageError(`--kinds names no kind; give some of ${available.join(', ')}`);
  }
  const kinds: JobKind[] = [];
  for (const name of requested) {
    const kind = JOB_KINDS.find((candidate) => candidate === name);
    if (kind === undefined) {
      const suggestion = closestMatch(name, JOB_KINDS);
      throw new UsageError(
        `unknown job kind "${name}"` +
          (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`) +
          `; the kinds are ${JOB_KINDS.join(', ')}`,
      );
    }
    if (factories[kind] === undefined) {
      throw new UsageError(
        `job kind "${kind}" has no processor in this build; this worker can run ${available.join(', ') || 'nothing'}`,
      );
    }
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  return kinds;
}
