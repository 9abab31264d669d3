import type { JobKind } from '../../src/definitions/job-definition.js';
import { parseRunJobData } from '../../src/queue/run-job.js';
import type { ProcessorFactory } from '../../src/job-kinds/processor-registry.js';

/**
 * A processor that does nothing but what paw does around every run: validate the job data,
 * start the run in the outcome store and finish it. For the queue benchmark only: it is handed
 * to `startWorkerService` through its `factories` option and never registered as a kind paw
 * ships (src/job-kinds/processor-registry.ts is untouched).
 */
export function noopProcessorFactory(kind: JobKind): ProcessorFactory {
  return ({ outcomes: { runs } }) => ({
    kind,
    async process(job) {
      const data = parseRunJobData(job.data);
      const { started } = await runs.start(data.runId, { recordWithNextWrite: true });
      if (!started) return;
      await runs.finish(data.runId, { status: 'succeeded' });
    },
  });
}
