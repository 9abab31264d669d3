/**
 * Where a job stands. `unrecognised` is a status string paw has never seen: it is reported as
 * such, never guessed to be a success or a failure.
 */
export type JobPhase = 'in_progress' | 'succeeded' | 'failed' | 'canceled' | 'unrecognised';

/** The in-progress statuses of platform-facts.md. */
const IN_PROGRESS = new Set([
  'QUEUED',
  'ACQUIRING',
  'RUNNING',
  'FINISHING',
  'TO_FINISH',
  'TO_RETRY',
  'YIELDING',
  'YIELDED',
  'TO_YIELDING',
  'TO_YIELDED',
  'CANCELING',
  'CANCELLING',
  'TO_CANCEL',
  'UNDOING',
  'TO_UNDO',
]);

/** Classifies a job's free-text status (case and surrounding spaces do not matter). */
export function classifyJobStatus(status: string): JobPhase {
  const normalised = status.trim().toUpperCase();
  if (IN_PROGRESS.has(normalised)) return 'in_progress';
  if (normalised === 'SUCCEEDED') return 'succeeded';
  if (normalised === 'FAILED') return 'failed';
  if (normalised === 'CANCELED' || normalised === 'CANCELLED') return 'canceled';
  return 'unrecognised';
}

/** Whether a phase is final: nothing more will happen to the job. */
export function isTerminal(phase: JobPhase): boolean {
  return phase === 'succeeded' || phase === 'failed' || phase === 'canceled';
}
