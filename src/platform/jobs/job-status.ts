import type { JobPhase } from '../vocabulary/vocabulary.js';

/** Whether a phase is final: nothing more will happen to the job. */
export function isTerminal(phase: JobPhase): boolean {
  return phase === 'succeeded' || phase === 'failed' || phase === 'canceled';
}

/**
 * Whether a job has ended: its phase is final, or its status word is one paw does not know but
 * the platform gave it an end time (terminal-looking). The one place this rule lives: a
 * waiter and the worker both end a job here, and report an unknown word as such.
 */
export function hasEnded(job: {
  readonly phase: JobPhase;
  readonly endTime: string | undefined;
}): boolean {
  return isTerminal(job.phase) || (job.phase === 'unrecognised' && job.endTime !== undefined);
}
