import type { ItemRecord } from '../../../outcomes/outcome-records.js';
import type { AfterWrite } from '../item-step.js';
import type { ItemWrite } from './lane-queue.js';

/**
 * Where an item in a lane's hands is, from the moment a read hands it to the lane until what its
 * step came to is written. One state per item, in one map: an item is in the lane's hands, or it
 * is not, and a read never hands the lane an item it holds (nor does anything else start a second
 * step of it).
 *
 * - `taking`: read, its take (an intent or a lease, with a new fence) being written;
 * - `stepping`: its step (trigger, poll or reconcile) runs, under `fence`;
 * - `ended`: its step ended; `write` waits for the lane's next write, under the same fence;
 * - `trigger-again`: its step found no trace of the earlier trigger; the next take writes a new
 *   intent, handed on from `fence`, then a new trigger;
 * - `writing`: its write is being made; it leaves the lane's hands when the write is done;
 * - `left-alone`: changed under the lane since it was read (its take was not recorded): left
 *   alone for the rest of the lane's wake.
 *
 * `fence` is the step's fence (lua/writeLane-16.lua): every write it leads to carries it, and is
 * refused once another step took the item. Undefined for an item the lane only takes out.
 */
export type InHand =
  | { readonly phase: 'taking' }
  | { readonly phase: 'stepping'; readonly fence: number }
  | {
      readonly phase: 'ended';
      readonly fence: number | undefined;
      readonly write: ItemWrite;
      readonly after?: AfterWrite | undefined;
    }
  | { readonly phase: 'trigger-again'; readonly fence: number; readonly item: ItemRecord }
  | { readonly phase: 'writing' }
  | { readonly phase: 'left-alone' };

export type Phase = InHand['phase'];

/**
 * The items in a lane's hands (see {@link InHand}), with how many are in each phase, kept as they
 * move (the lane's timing asks for the counts several times per turn of its loop).
 */
export class LaneHands {
  private readonly items = new Map<string, InHand>();
  private readonly counts: Record<Phase, number> = {
    taking: 0,
    stepping: 0,
    ended: 0,
    'trigger-again': 0,
    writing: 0,
    'left-alone': 0,
  };

  /** Items in the lane's hands, in every phase. */
  get size(): number {
    return this.items.size;
  }

  count(phase: Phase): number {
    return this.counts[phase];
  }

  has(itemKey: string): boolean {
    return this.items.has(itemKey);
  }

  get(itemKey: string): InHand | undefined {
    return this.items.get(itemKey);
  }

  /** Puts an item in a phase (in the lane's hands from now on, if it was not). */
  set(itemKey: string, state: InHand): void {
    const before = this.items.get(itemKey);
    if (before !== undefined) this.counts[before.phase]--;
    this.items.set(itemKey, state);
    this.counts[state.phase]++;
  }

  /** The item leaves the lane's hands. */
  release(itemKey: string): void {
    const before = this.items.get(itemKey);
    if (before === undefined) return;
    this.counts[before.phase]--;
    this.items.delete(itemKey);
  }

  /** Every item in `phase`, with its state (a copy: the caller may move them). */
  inPhase<P extends Phase>(phase: P): [string, Extract<InHand, { phase: P }>][] {
    const found: [string, Extract<InHand, { phase: P }>][] = [];
    if (this.counts[phase] === 0) return found;
    for (const [itemKey, state] of this.items) {
      if (state.phase === phase) found.push([itemKey, state as Extract<InHand, { phase: P }>]);
    }
    return found;
  }
}
