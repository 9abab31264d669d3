export const EVENT_SEVERITIES = ['SEVERITY_INFO', 'SEVERITY_WARNING', 'SEVERITY_CRITICAL'] as const;

/**
 * An activity event (REST) or activity series (GraphQL); enum-like fields are the platform's
 * words. `jobId` is absent on the real platform: activity is matched to a trigger by workload,
 * `isOnDemand` and time.
 */
export interface PlatformEvent {
  readonly id: string;
  readonly time: string;
  readonly type?: string | null | undefined;
  readonly status?: string | null | undefined;
  readonly severity?: string | null | undefined;
  readonly objectId?: string | null | undefined;
  readonly objectName?: string | null | undefined;
  readonly objectType?: string | null | undefined;
  readonly clusterId?: string | null | undefined;
  readonly jobId?: string | null | undefined;
  readonly isOnDemand?: boolean | null | undefined;
  /** When the activity started (GraphQL series); `time` is its latest update. */
  readonly startTime?: string | null | undefined;
  readonly message?: string | null | undefined;
}

/** A type alias, not an interface: it is sent as a REST query (`RestListing`), which wants an index signature. */
export type EventFilters = {
  readonly objectId?: string | undefined;
  readonly type?: string | undefined;
  readonly status?: string | undefined;
  readonly severity?: string | undefined;
  /** ISO 8601, inclusive. */
  readonly startTime?: string | undefined;
  readonly endTime?: string | undefined;
};
