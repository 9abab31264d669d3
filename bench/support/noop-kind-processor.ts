import type { JobKind } from '../../src/definitions/job-definition.js';
import { parseRunJobData } from '../../src/queue/run-job.js';
import type { KindProcessorFactory } from '../../src/processing/kind-processor.js';

/**
 * A processor that does nothing but what paw does around every run: validate the job data,
 * start the run in the outcome store and finish it. For the queue benchmark only: it is handed
 * to `startWorkerService` through its `factories` option and never registered as a kind paw
 * ships (src/worker/processor-registry.ts is untouched).
 */
export function noopProcessorFactory(kind: JobKind): KindProcessorFactory {
  return (dependencies) => ({
    kind,
    async process(job) {
      const data = parseRunJobData(job.data);
      const { started } = await dependencies.outcomes.startRun(data.runId);
      if (!started) return;
      await dependencies.outcomes.finishRun(data.runId, { status: 'succeeded' });
    },
  });
}
