import { WORKLOAD_TYPES, type WorkloadType } from '../records.js';
import { SimVocabulary, type ActivityObject } from '../sim-vocabulary.js';

/**
 * The published schema's words: the GraphQL endpoint speaks them whatever vocabulary the REST
 * interface speaks (its enums would refuse any other word).
 */
export const PUBLISHED_WORDS = new SimVocabulary('graphql');

const ACTIVITY_OBJECTS: readonly ActivityObject[] = [...WORKLOAD_TYPES, 'SLA_DOMAIN'];

/** The keys whose word (by `wordOf`) is one of `words`, exactly: a word of nothing names none. */
function named<K extends string>(
  keys: readonly K[],
  wordOf: (key: K) => string,
  words: readonly string[],
): ReadonlySet<K> {
  const wanted = new Set(words);
  return new Set(keys.filter((key) => wanted.has(wordOf(key))));
}

/** The workload types a list of `ObjectTypeEnum` values names. */
export function workloadTypesNamed(objectTypes: readonly string[]): ReadonlySet<WorkloadType> {
  return named(WORKLOAD_TYPES, (type) => PUBLISHED_WORDS.workloadType(type), objectTypes);
}

/** The workload types a list of `SlaObjectType` values names (one may name several). */
export function workloadTypesOfSlaObjectTypes(
  slaObjectTypes: readonly string[],
): ReadonlySet<WorkloadType> {
  return named(
    WORKLOAD_TYPES,
    (type) => PUBLISHED_WORDS.slaObjectTypes([type])[0] ?? '',
    slaObjectTypes,
  );
}

/** What a list of `EventObjectType` values names. */
export function activityObjectsNamed(
  eventObjectTypes: readonly string[],
): ReadonlySet<ActivityObject> {
  return named(
    ACTIVITY_OBJECTS,
    (object) => PUBLISHED_WORDS.eventObjectTypeFilterWord(object),
    eventObjectTypes,
  );
}
