import type { JobKind } from '../definitions/job-definition.js';
import { createRotateSecretProcessor } from '../processors/rotate-secret/rotate-secret-processor.js';
import { createSlaWindowProcessor } from '../processors/sla-window/sla-window-processor.js';
import { createSnapshotProcessor } from '../processors/snapshot/snapshot-processor.js';
import type { KindProcessorFactory } from '../processing/kind-processor.js';

/** The processor factory of each job kind a worker can run. */
export type ProcessorFactories = Readonly<Partial<Record<JobKind, KindProcessorFactory>>>;

/**
 * The processor of each job kind, one line per kind. `paw worker` runs one BullMQ Worker for
 * each kind listed here (or those named by `--kinds`); a kind missing here cannot be run.
 */
export const PROCESSOR_FACTORIES: ProcessorFactories = {
  snapshot: createSnapshotProcessor,
  'sla-window': createSlaWindowProcessor,
  'rotate-secret': createRotateSecretProcessor,
};
