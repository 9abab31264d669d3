import { z } from 'zod';

/**
 * A snapshot job record (platform-facts.md, docs/platform-model.md), parsed tolerantly: only
 * `id` and `status` are required, `status` is any string, `progress` may be missing, null, a
 * numeric string or out of range (it is clamped), and extra fields are ignored.
 */
export const snapshotJobSchema = z
  .looseObject({
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
  })
  .transform((job) => ({
    id: job.id,
    status: job.status,
    workloadId: job.workloadId ?? undefined,
    progress: toProgress(job.progress),
    startTime: job.startTime ?? undefined,
    endTime: job.endTime ?? undefined,
    nodeId: job.nodeId ?? undefined,
    errorMessage: typeof job.error === 'string' ? job.error : (job.error?.message ?? undefined),
    snapshotId: job.snapshotId ?? undefined,
    links: job.links ?? [],
  }));

export type SnapshotJob = z.output<typeof snapshotJobSchema>;

function toProgress(value: number | string | null | undefined): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  if (number == null || !Number.isFinite(number)) return undefined;
  return Math.min(100, Math.max(0, number));
}
