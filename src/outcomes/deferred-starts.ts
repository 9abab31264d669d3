/**
 * The starts of runs this process has made and not yet written: a processor's start of a run
 * (RunStore.start with `recordWithNextWrite`) is recorded by the process's next write for that
 * run (an item, the fan-out, a lane's write, the finish), in the same script, which marks the run
 * running with its first start time and one more attempt (`pawStarted` in
 * src/outcomes/lua/includes/runHash.lua).
 *
 * They live in process memory on purpose: a start written where it is made would be a script of
 * its own for every run job (`bench queue`: 3 scripts per queued run job instead of 4), and a
 * start that crashed before doing anything is meant to leave no trace (the run stays queued and
 * its next worker starts it). A start forgotten by a crash is exactly such a start.
 */
export class DeferredStarts {
  private readonly pending = new Map<string, number>();

  /** `runId` was started at `atMs` by this process: its next write records it. */
  defer(runId: string, atMs: number): void {
    this.pending.set(runId, atMs);
  }

  /** The start of `runId` waiting for its next write, as a script takes it ('' for none). */
  of(runId: string): number | '' {
    return this.pending.get(runId) ?? '';
  }

  /** The write that carried `start` (what {@link of} gave) landed: the start is on record. */
  recorded(runId: string, start: number | ''): void {
    if (start !== '' && this.pending.get(runId) === start) this.pending.delete(runId);
  }
}
