import { z } from 'zod';
import type { EventOperations } from '../api/platform-api.js';
import type { EventFilters, PlatformEvent } from '../records/platform-event.js';
import type { FieldAliases } from './field-aliases.js';
import type { RestClient } from './rest-client.js';
import { RestListing } from './rest-listing.js';

/** An activity event; every enum-like field accepts words paw does not know. */
const eventRecordSchema = z.looseObject({
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
  isOnDemand: z.boolean().nullish(),
  startTime: z.string().nullish(),
  message: z.string().nullish(),
});

/** Activity events through the task-based REST interface, newest first. */
export class EventsApi extends RestListing<PlatformEvent, EventFilters> implements EventOperations {
  constructor(rest: RestClient, aliases: FieldAliases) {
    super(rest, 'listEvents', aliases.schemaFor('event', eventRecordSchema));
  }
}
