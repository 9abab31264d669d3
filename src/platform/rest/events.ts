import { z } from 'zod';
import type { Paginated } from '../pagination/paginated.js';
import type { RestClient } from './rest-client.js';

export const EVENT_SEVERITIES = ['SEVERITY_INFO', 'SEVERITY_WARNING', 'SEVERITY_CRITICAL'] as const;

/** An activity event; every enum-like field accepts values paw does not know. */
export const eventSchema = z.looseObject({
  id: z.string().min(1),
  time: z.string(),
  type: z.string().nullish(),
  status: z.string().nullish(),
  severity: z.string().nullish(),
  objectId: z.string().nullish(),
  objectName: z.string().nullish(),
  objectType: z.string().nullish(),
  clusterId: z.string().nullish(),
  jobId: z.string().nullish(),
  message: z.string().nullish(),
});
export type PlatformEvent = z.output<typeof eventSchema>;

export interface EventFilters {
  readonly objectId?: string | undefined;
  readonly type?: string | undefined;
  readonly status?: string | undefined;
  readonly severity?: string | undefined;
  /** ISO 8601, inclusive. */
  readonly startTime?: string | undefined;
  readonly endTime?: string | undefined;
}

export class EventsApi {
  constructor(private readonly rest: RestClient) {}

  /** Newest first. */
  list(filters: EventFilters = {}, signal?: AbortSignal): Paginated<PlatformEvent> {
    return this.rest.collection('listEvents', eventSchema, { query: { ...filters }, signal });
  }
}
