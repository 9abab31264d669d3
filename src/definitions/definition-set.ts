import type { DefinitionProblem } from './definition-problem.js';
import type { JobDefinition } from './job-definition.js';

/** A change to the definitions that was refused, and why: what `/readyz` and the dashboard show. */
export interface RefusedChange {
  /** ISO 8601: when the change was read. */
  readonly at: string;
  readonly problems: readonly DefinitionProblem[];
}

/** What a reload changed, by definition id. */
export interface DefinitionChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

type Listener = (definitions: readonly JobDefinition[], changes: DefinitionChanges) => void;

/**
 * The job definitions a process runs now. A reload replaces them as a whole, and only with a
 * valid set: a change with any problem is refused (kept in `refused()` for the probes and the
 * dashboard) and the last valid set keeps running, as a start-up refuses a partly valid set.
 * The scheduler, the notifier and the ops server read it; they never hold a copy of their own.
 */
export class DefinitionSet {
  private definitions: readonly JobDefinition[];
  private byId: ReadonlyMap<string, JobDefinition>;
  /** Every definition this process has run, in its last version: removed ones stay here. */
  private readonly everKnown = new Map<string, JobDefinition>();
  private lastRefused: RefusedChange | undefined;
  private readonly listeners: Listener[] = [];

  constructor(definitions: readonly JobDefinition[]) {
    this.definitions = definitions;
    this.byId = indexById(definitions);
    for (const definition of definitions) this.everKnown.set(definition.id, definition);
  }

  /** A set, or a fixed list made into one (processes that never reload, and tests). */
  static from(definitions: DefinitionSet | readonly JobDefinition[]): DefinitionSet {
    return definitions instanceof DefinitionSet ? definitions : new DefinitionSet(definitions);
  }

  current(): readonly JobDefinition[] {
    return this.definitions;
  }

  get(id: string): JobDefinition | undefined {
    return this.byId.get(id);
  }

  /**
   * The definition `id` in its last version, also after a reload removed it: a run it started
   * before still ends, and its summary still goes to the webhook it named.
   */
  lastKnown(id: string): JobDefinition | undefined {
    return this.byId.get(id) ?? this.everKnown.get(id);
  }

  /** The last refused change, until a valid one replaces the set. */
  refused(): RefusedChange | undefined {
    return this.lastRefused;
  }

  /** Called after every replacement that changed something. */
  onChange(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Replaces the set with a valid one; returns what changed (nothing: no listener is called). */
  replace(definitions: readonly JobDefinition[]): DefinitionChanges {
    this.lastRefused = undefined;
    const next = indexById(definitions);
    const changes: DefinitionChanges = {
      added: [...next.keys()].filter((id) => !this.byId.has(id)),
      removed: [...this.byId.keys()].filter((id) => !next.has(id)),
      changed: [...next.entries()]
        .filter(([id, definition]) => {
          const before = this.byId.get(id);
          return before !== undefined && !sameDefinition(before, definition);
        })
        .map(([id]) => id),
    };
    if (changes.added.length + changes.removed.length + changes.changed.length === 0) {
      return changes;
    }
    this.definitions = definitions;
    this.byId = next;
    for (const definition of definitions) this.everKnown.set(definition.id, definition);
    for (const listener of this.listeners) listener(definitions, changes);
    return changes;
  }

  /** Records a refused change; the current set stays. */
  refuse(problems: readonly DefinitionProblem[], at: Date): void {
    this.lastRefused = { at: at.toISOString(), problems };
  }
}

/** Two definitions are the same when every value is (they are plain data from YAML). */
export function sameDefinition(a: JobDefinition, b: JobDefinition): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function indexById(definitions: readonly JobDefinition[]): ReadonlyMap<string, JobDefinition> {
  return new Map(definitions.map((definition) => [definition.id, definition]));
}
