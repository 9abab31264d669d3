import { z } from 'zod';
import type { JobPhase } from '../vocabulary/vocabulary.js';

/**
 * A snapshot job as paw sees it, whichever interface it came through: the platform's status
 * word and where paw classifies it (`phase`, through the vocabulary).
 */
export interface SnapshotJob {
  /** The job (request) id; for a job followed through its activity, the activity's id. */
  readonly id: string;
  readonly status: string;
  readonly phase: JobPhase;
  readonly workloadId: string | undefined;
  /** 0..100 when the platform says. */
  readonly progress: number | undefined;
  readonly startTime: string | undefined;
  readonly endTime: string | undefined;
  readonly nodeId: string | undefined;
  readonly errorMessage: string | undefined;
  readonly snapshotId: string | undefined;
  readonly links: readonly unknown[];
}

/**
 * A job record (platform-facts.md, docs/platform-model.md), parsed tolerantly: only `id` and
 * `status` are required, `status` is any string, `progress` may be missing, null, a numeric
 * string or out of range (it is clamped), and extra fields are ignored.
 */
export const snapshotJobRecordSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  workloadId: z.string().nullish(),
  progress: z.union([z.number(), z.string(), z.null()]).optional(),
  startTime: z.string().nullish(),
  endTime: z.string().nullish(),
  nodeId: z.string().nullish(),
  error: z
    .union([z.looseObject({ message: z.string().nullish() }), z.string(), z.null()])
    .optional(),
  snapshotId: z.string().nullish(),
  links: z.array(z.unknown()).nullish(),
});
export type SnapshotJobRecord = z.output<typeof snapshotJobRecordSchema>;

/** The job paw works with, from a parsed record and the phase its status word means. */
export function toSnapshotJob(record: SnapshotJobRecord, phase: JobPhase): SnapshotJob {
  return {
    id: record.id,
    status: record.status,
    phase,
    workloadId: record.workloadId ?? undefined,
    progress: toProgress(record.progress),
    startTime: record.startTime ?? undefined,
    endTime: record.endTime ?? undefined,
    nodeId: record.nodeId ?? undefined,
    errorMessage:
      typeof record.error === 'string' ? record.error : (record.error?.message ?? undefined),
    snapshotId: record.snapshotId ?? undefined,
    links: record.links ?? [],
  };
}

function toProgress(value: number | string | null | undefined): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  if (number == null || !Number.isFinite(number)) return undefined;
  return Math.min(100, Math.max(0, number));
}
