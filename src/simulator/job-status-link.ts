import { z } from 'zod';

/**
 * How a snapshot trigger's `metadata` carries the job-status link. The interface is beta and
 * the link's shape is unpublished, so the simulator can serve every shape a client must accept
 * (docs/platform-model.md, "The job-status link").
 */
export const jobStatusLinkSchema = z.strictObject({
  shape: z.enum(['jobStatusUrl', 'jobStatusLink', 'link', 'href', 'links']).default('jobStatusUrl'),
  /** The `rel` of the `links` shape. */
  rel: z.enum(['jobStatus', 'status', 'self']).default('jobStatus'),
  /** Relative to `{base_url}` (e.g. `/api/rest/workloads/…`) instead of absolute. */
  relative: z.boolean().default(false),
  /**
   * Whose origin the link names: the platform's REST route, or the workload's cluster node
   * (`{cluster_base_url}/api/v1/snapshot-jobs/{jobId}`), as the real platform's job links do.
   */
  target: z.enum(['platform', 'cluster-node']).default('platform'),
});

export type JobStatusLinkShape = z.output<typeof jobStatusLinkSchema>;

/** The trigger's `metadata` for a job whose status lives at `path` (relative to `baseUrl`). */
export function jobStatusMetadata(
  shape: JobStatusLinkShape,
  baseUrl: string,
  path: string,
): Record<string, unknown> {
  const url = shape.relative && shape.target === 'platform' ? path : `${baseUrl}${path}`;
  if (shape.shape === 'links') return { links: [{ href: url, rel: shape.rel }] };
  return { [shape.shape]: url };
}
