import type { SimSnapshot } from '../records.js';
import { argumentError, refuseGiven } from './graphql-context.js';

/** `SnapshotQueryFilterInput`: one condition on a workload's snapshots. */
export interface SnapshotQueryFilter {
  readonly field?: string | null;
  readonly text?: string | null;
  readonly textList?: readonly string[] | null;
  readonly typeFilters?: readonly string[] | null;
  readonly customizationFilters?: readonly string[] | null;
  readonly time?: unknown;
  readonly shouldFetchLinked?: boolean | null;
}

/**
 * What the simulator's snapshots never are: archived, replicated, downloaded, on legal hold,
 * anomalous or quarantined. Asking for those selects none (asked `false`, all).
 */
const NEVER = new Set([
  'IS_ARCHIVED',
  'IS_REPLICA',
  'IS_DOWNLOADED',
  'IS_LEGALLY_HELD',
  'ANOMALOUS_ONLY',
  'QUARANTINED_ONLY',
]);

/** What they always are (every snapshot is a source snapshot) or never are to be left out. */
const ALWAYS = new Set(['IS_SOURCE_SNAPSHOT', 'EXCLUDE_ANOMALOUS', 'EXCLUDE_QUARANTINED']);

/**
 * The snapshots one `snapshotFilter` entry keeps (`at` names it in errors: `snapshotFilter[0]`).
 * A yes-or-no field takes `text` `true` (the default) or `false`; `SLA_ID` and
 * `ON_DEMAND_SLA_ID` take ids in `text` or `textList`; `SNAPSHOT_TYPE` takes `typeFilters`. A
 * field the simulator cannot judge (indexing, archival locations, cloud accounts, ...) is a
 * field error naming it.
 */
export function snapshotFilter(
  filter: SnapshotQueryFilter,
  at: string,
): (snapshot: SimSnapshot) => boolean {
  const { field } = filter;
  if (field == null) throw argumentError(`${at}.field`, 'name the field to filter by');
  refuseGiven(
    `${at}.customizationFilters`,
    filter.customizationFilters,
    'it has no customized snapshots',
  );
  refuseGiven(`${at}.time`, filter.time, 'it has no immutability locks');
  if (field !== 'SNAPSHOT_TYPE')
    refuseGiven(`${at}.typeFilters`, filter.typeFilters, 'only SNAPSHOT_TYPE takes typeFilters');
  const yes = (): boolean => {
    const text = filter.text ?? 'true';
    if (text !== 'true' && text !== 'false') {
      throw argumentError(
        `${at}.text`,
        `${field} takes true or false, not ${JSON.stringify(text)}`,
      );
    }
    return text === 'true';
  };
  const ids = (): readonly string[] => {
    const list = [...(filter.text == null ? [] : [filter.text]), ...(filter.textList ?? [])];
    if (list.length === 0) throw argumentError(`${at}.textList`, `${field} takes SLA Domain ids`);
    return list;
  };
  if (NEVER.has(field)) {
    const wanted = yes();
    return () => !wanted;
  }
  if (ALWAYS.has(field)) return () => true;
  switch (field) {
    case 'IS_ON_DEMAND': {
      const wanted = yes();
      return (snapshot) => snapshot.isOnDemand === wanted;
    }
    case 'SLA_ID': {
      const wanted = ids();
      return (snapshot) => snapshot.slaDomainId !== null && wanted.includes(snapshot.slaDomainId);
    }
    case 'ON_DEMAND_SLA_ID': {
      const wanted = ids();
      return (snapshot) =>
        snapshot.isOnDemand &&
        snapshot.slaDomainId !== null &&
        wanted.includes(snapshot.slaDomainId);
    }
    case 'SNAPSHOT_TYPE': {
      const types = filter.typeFilters ?? [];
      if (types.length === 0)
        throw argumentError(`${at}.typeFilters`, 'SNAPSHOT_TYPE takes the types to keep');
      // No snapshot of the simulator was downloaded from an archive.
      return (snapshot) => types.includes(snapshot.isOnDemand ? 'ON_DEMAND' : 'SCHEDULED');
    }
    default:
      throw argumentError(
        `${at}.field`,
        `the simulator cannot filter snapshots by ${field}; it filters by IS_ON_DEMAND, SLA_ID, ON_DEMAND_SLA_ID, SNAPSHOT_TYPE, ${[...NEVER, ...ALWAYS].join(', ')}`,
      );
  }
}
