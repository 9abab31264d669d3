import type { Outcomes } from '../../src/outcomes/outcomes.js';

/**
 * Records a queued snapshot run of the definition `nightly`, fired by cron at `fireTime`, as the
 * scheduler would: the run the outcome store's tests record items into.
 */
export async function createNightlyRun(
  store: Outcomes,
  runId: string,
  fireTime: Date,
): Promise<string> {
  await store.runs.create({
    runId,
    definitionId: 'nightly',
    kind: 'snapshot',
    fireTime,
    trigger: 'cron',
    status: 'queued',
  });
  return runId;
}
