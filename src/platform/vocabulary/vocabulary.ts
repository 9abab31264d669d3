import {
  DEFAULT_EVENT_STATUS_WORDS,
  DEFAULT_EVENT_TYPE_WORDS,
  DEFAULT_JOB_STATUS_WORDS,
  DEFAULT_WORKLOAD_KINDS,
  WORKLOAD_TYPE_PLACES,
  type EventTypeMeaning,
  type KnownJobPhase,
  type OnDemandSnapshot,
  type WorkloadKindWords,
  type WorkloadTypePlace,
} from '../defaults/default-vocabulary.js';

/** Where a job stands; `unrecognised` is a word paw does not know (reported with the word). */
export type JobPhase = KnownJobPhase | 'unrecognised';

/** Words a user adds to the defaults (`platform.vocabulary` in the settings). */
export interface VocabularyAdditions {
  /** Extra words per workload kind; a kind paw does not know is added (never snapshotted). */
  readonly workloadTypes?: Readonly<Record<string, readonly string[]>>;
  readonly jobStatuses?: Readonly<Partial<Record<KnownJobPhase, readonly string[]>>>;
  readonly eventStatuses?: Readonly<Partial<Record<KnownJobPhase, readonly string[]>>>;
  readonly eventTypes?: Readonly<Partial<Record<EventTypeMeaning, readonly string[]>>>;
}

/** How paw compares platform words: ignoring case, `_`, `-`, `.` and spaces. */
function normalizeWord(word: string): string {
  return word.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** What a snapshot run does with a workload, decided from its type word alone. */
export type SnapshotDecision =
  | {
      readonly action: 'trigger';
      /** The kind paw recognised, or undefined: the platform decides, and its answer is recorded. */
      readonly kind: string | undefined;
      readonly onDemandSnapshot: OnDemandSnapshot | undefined;
    }
  | { readonly action: 'skip'; readonly kind: string; readonly reason: string };

/**
 * The platform's words for workload types, job and activity statuses and activity types, as
 * one lookup: the defaults of default-vocabulary.ts plus the user's additions. Unknown words are
 * never an error: a type paw does not recognise is left for the platform to judge, a status is
 * `unrecognised` and reported with its word.
 */
export class Vocabulary {
  private readonly kinds = new Map<string, WorkloadKindWords>();
  private readonly kindsByWord = new Map<string, Set<string>>();
  private readonly jobPhases = new Map<string, KnownJobPhase>();
  private readonly eventPhases = new Map<string, KnownJobPhase>();
  private readonly eventTypes = new Map<string, EventTypeMeaning>();

  constructor(additions: VocabularyAdditions = {}) {
    const extraWords = new Map<string, readonly string[]>();
    for (const [kind, words] of Object.entries(additions.workloadTypes ?? {})) {
      extraWords.set(kind, words);
    }
    for (const [kind, entry] of Object.entries(DEFAULT_WORKLOAD_KINDS)) {
      this.kinds.set(kind, entry);
      for (const place of WORKLOAD_TYPE_PLACES) this.addKindWord(entry.words[place], kind);
    }
    for (const [kind, words] of extraWords) {
      if (!this.kinds.has(kind)) {
        const spec = words[0] ?? kind;
        this.kinds.set(kind, {
          words: Object.fromEntries(WORKLOAD_TYPE_PLACES.map((place) => [place, spec])) as Record<
            WorkloadTypePlace,
            string
          >,
        });
        this.addKindWord(kind, kind);
      }
      for (const word of words) this.addKindWord(word, kind);
    }
    fill(this.jobPhases, Object.values(DEFAULT_JOB_STATUS_WORDS), additions.jobStatuses);
    fill(this.eventPhases, Object.values(DEFAULT_EVENT_STATUS_WORDS), additions.eventStatuses);
    fill(this.eventTypes, Object.values(DEFAULT_EVENT_TYPE_WORDS), additions.eventTypes);
  }

  /** Every workload kind paw knows, canonical names. */
  knownKinds(): string[] {
    return [...this.kinds.keys()];
  }

  /**
   * The kind a workload type word names, or undefined when paw does not recognise it (or when
   * it names several, as an SLA object type shared by both filesets does).
   */
  workloadKind(word: string): string | undefined {
    const kinds = this.kindsByWord.get(normalizeWord(word));
    return kinds?.size === 1 ? [...kinds][0] : undefined;
  }

  /** Every kind a word may name (an SLA object type may cover several). */
  kindsOf(word: string): readonly string[] {
    return [...(this.kindsByWord.get(normalizeWord(word)) ?? [])];
  }

  /** How the platform snapshots a kind on demand; undefined when it cannot. */
  onDemandSnapshot(kind: string | undefined): OnDemandSnapshot | undefined {
    return kind === undefined ? undefined : this.kinds.get(kind)?.onDemandSnapshot;
  }

  /** The word for a kind at a place (e.g. the GraphQL `ObjectTypeEnum` value). */
  wordFor(kind: string, place: WorkloadTypePlace): string | undefined {
    return this.kinds.get(kind)?.words[place];
  }

  /** Whether two workload type words mean the same kind (or are the same word). */
  sameWorkloadType(a: string, b: string): boolean {
    if (normalizeWord(a) === normalizeWord(b)) return true;
    const kind = this.workloadKind(a);
    return kind !== undefined && kind === this.workloadKind(b);
  }

  /**
   * Whether a snapshot run triggers a workload of this type: a kind paw knows the platform
   * cannot snapshot on demand is skipped with the reason; anything else is sent, and a type paw
   * does not recognise is left for the platform to accept or refuse.
   */
  snapshotDecision(typeWord: string): SnapshotDecision {
    const kind = this.workloadKind(typeWord);
    const onDemandSnapshot = this.onDemandSnapshot(kind);
    if (kind !== undefined && onDemandSnapshot === undefined) {
      return {
        action: 'skip',
        kind,
        reason:
          `${typeWord}${normalizeWord(typeWord) === normalizeWord(kind) ? '' : ` (${kind})`}: ` +
          'on-demand snapshots are supported only for vSphere VMs (VSPHERE_VM) and SQL Server ' +
          'databases (MSSQL_DATABASE); never triggered',
      };
    }
    return { action: 'trigger', kind, onDemandSnapshot };
  }

  /** Where a snapshot job stands, from its status word. */
  jobPhase(status: string): JobPhase {
    return this.jobPhases.get(normalizeWord(status)) ?? 'unrecognised';
  }

  /** Where an activity (event series) stands, from its status word. */
  eventPhase(status: string): JobPhase {
    return this.eventPhases.get(normalizeWord(status)) ?? 'unrecognised';
  }

  /** Whether an activity type word means `meaning` (e.g. a backup). */
  isEventType(word: string | null | undefined, meaning: EventTypeMeaning): boolean {
    return word != null && this.eventTypes.get(normalizeWord(word)) === meaning;
  }

  private addKindWord(word: string, kind: string): void {
    const key = normalizeWord(word);
    const kinds = this.kindsByWord.get(key) ?? new Set<string>();
    kinds.add(kind);
    this.kindsByWord.set(key, kinds);
  }
}

function fill<M extends string>(
  target: Map<string, M>,
  defaults: readonly (Readonly<Partial<Record<M, readonly string[]>>> | undefined)[],
  additions: Readonly<Partial<Record<M, readonly string[]>>> | undefined,
): void {
  for (const source of [...defaults, additions ?? {}]) {
    if (source === undefined) continue;
    for (const [meaning, words] of Object.entries(source) as [M, readonly string[] | undefined][]) {
      for (const word of words ?? []) target.set(normalizeWord(word), meaning);
    }
  }
}
