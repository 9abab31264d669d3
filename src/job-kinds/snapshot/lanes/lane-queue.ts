import type { Redis } from 'ioredis';
import {
  ITEM_SCRIPT_FRAGMENTS,
  type ItemStore,
  type NotRecordedItem,
  type RecordedItem,
  type RecordOptions,
} from '../../../outcomes/item-store.js';
import type { OutcomeKeys } from '../../../outcomes/outcome-keys.js';
import {
  itemFromStored,
  type ItemRecord,
  type ItemUpdate,
} from '../../../outcomes/outcome-records.js';
import type { OutcomeStatus } from '../../../outcomes/outcome-status.js';
import { withKnownRun } from '../../../outcomes/unknown-run-error.js';
import { luaScript } from '../../../redis/lua-file.js';
import { DELAYED_MOVE_FRAGMENTS, type OwnedJobStep } from '../../../queue/delayed-move.js';
import { LaneKeys } from './lane-keys.js';

const laneCountScript = luaScript('job-kinds/snapshot/lanes/lua/laneCount-1.lua');
const enqueueForLanesScript = luaScript('job-kinds/snapshot/lanes/lua/enqueueForLanes-1.lua');
const dueItemsScript = luaScript('job-kinds/snapshot/lanes/lua/dueItems-4.lua');
const writeLaneScript = luaScript('job-kinds/snapshot/lanes/lua/writeLane-16.lua', {
  ...ITEM_SCRIPT_FRAGMENTS,
  ...DELAYED_MOVE_FRAGMENTS,
});

/** Items queued per script call by {@link LaneQueue.enqueue}. */
const ENQUEUE_BATCH = 1000;

/** The first element of writeLane's reply when the job was not this worker's. */
const REFUSED = 'PAW_STEP_REFUSED';
/** An item's fence in writeLane's reply when the write's fence was not the item's. */
const STALE_STEP = 'PAW_STALE_STEP';

/**
 * How a write stands to the step that holds its item (lua/writeLane-16.lua): a new step takes
 * the item (a new fence is drawn; with `from`, only while the item's fence is that one: the step
 * holding it hands it on), or the step holding it writes (only while its fence is still `held`).
 */
type StepFence = { readonly take: true; readonly from?: number } | { readonly held: number };

/**
 * One item's part of a lane's write ({@link LaneQueue.write}): its record (as ItemStore.record
 * would make it, compare-and-set with `onlyIfStatus`) and its place in the lane, which moves only
 * when the record was made.
 */
export interface ItemWrite extends RecordOptions {
  readonly itemKey: string;
  /** Nothing is recorded when absent (only the lane changes). */
  readonly update?: ItemUpdate;
  /** When the item is next due in its lane (epoch ms); `null` takes it out; absent: unchanged. */
  readonly dueAt?: number | null;
  /** The step the write belongs to; absent: none (nothing is checked or drawn). */
  readonly fence?: StepFence;
}

/** What one item's part of a {@link LaneQueue.write} came to. */
type ItemWritten =
  /** Its fence was not the write's: another step took the item since; nothing was written. */
  | { readonly stale: true }
  | {
      readonly stale: false;
      /** The item's fence after the write (undefined: it has none, e.g. it left the lane). */
      readonly fence: number | undefined;
      /** What its record came to (undefined: nothing to record). */
      readonly record: RecordedItem | NotRecordedItem | undefined;
    };

/** What {@link LaneQueue.write} did. */
export interface LaneWritten {
  /** One entry per write, in their order. */
  readonly results: readonly ItemWritten[];
  /**
   * What became of the job: 1 moved to the delayed set, 2 kept (due again soon), 0 neither (no
   * move asked for, or nothing left in the lane nor in the queue: the lane is done); a negative
   * BullMQ code when it could not be moved.
   */
  readonly stepResult: number;
}

/** What {@link LaneQueue.due} found in a lane. */
export interface DueItems {
  readonly runStatus: OutcomeStatus;
  /** Items in the lane, due or not (those just taken from the queue included). */
  readonly laneSize: number;
  /** When the lane's earliest item not returned is due (epoch ms); undefined when none is. */
  readonly nextDueAt: number | undefined;
  /** Items still in the run's lane queue, for any lane to take. */
  readonly queued: number;
  /** The due items, earliest first, with their records (undefined: no record). */
  readonly items: readonly {
    readonly itemKey: string;
    readonly dueAt: number;
    readonly item: ItemRecord | undefined;
  }[];
}

/**
 * The work queue of a snapshot run's lanes (docs/worker.md, "A snapshot run"; keys: lane-keys.ts):
 * the run's fan-out queues its items once; each lane takes its share into a sorted set of its own,
 * scored by when each item is next due, and writes what its items came to with their records, in
 * one script per write (scripts: ./lua/).
 */
export class LaneQueue {
  private readonly laneKeys: LaneKeys;

  /**
   * @param redis the outcome records' connection (Outcomes.redis): a lane's writes are records.
   * @param items how each write's items are recorded (and the observer told).
   */
  constructor(
    private readonly redis: Redis,
    private readonly keys: OutcomeKeys,
    private readonly items: ItemStore,
  ) {
    this.laneKeys = new LaneKeys(keys);
  }

  /**
   * How many lanes the run's items are split into: `proposed`, unless a count is on record
   * already (a repeated fan-out keeps the first). Throws UnknownRunError.
   */
  async count(runId: string, proposed: number): Promise<number> {
    return Number(
      await withKnownRun(runId, () =>
        laneCountScript.run(this.redis, [this.keys.run(runId)], [proposed]),
      ),
    );
  }

  /**
   * Queues a run's items for its lanes (`lanes` of them), unless they are queued already or a
   * lane has taken them. Returns how many were queued.
   */
  async enqueue(runId: string, lanes: number, itemKeys: readonly string[]): Promise<number> {
    let queued = 0;
    for (let first = 0; first < itemKeys.length; first += ENQUEUE_BATCH) {
      queued += Number(
        await enqueueForLanesScript.run(
          this.redis,
          [this.laneKeys.laneQueue(runId)],
          [this.laneKeys.lanesOf(runId), lanes, ...itemKeys.slice(first, first + ENQUEUE_BATCH)],
        ),
      );
    }
    return queued;
  }

  /**
   * Up to `limit` items for a lane, with their records: first up to `fromQueue` from the run's
   * lane queue (taken into the lane, due at `leaseUntil`), then the lane's own items due by
   * `upTo` (epoch ms), the earliest first. Undefined when there is no such run. One round trip.
   */
  async due(
    runId: string,
    lane: number,
    options: {
      readonly upTo: number;
      readonly limit: number;
      readonly fromQueue: number;
      readonly leaseUntil: number;
    },
  ): Promise<DueItems | undefined> {
    const reply = (await dueItemsScript.run(
      this.redis,
      [
        this.keys.run(runId),
        this.keys.items(runId),
        this.laneKeys.lane(runId, lane),
        this.laneKeys.laneQueue(runId),
      ],
      [
        Math.floor(options.upTo),
        options.limit,
        Math.round(options.leaseUntil),
        Math.max(0, Math.min(options.fromQueue, options.limit)),
      ],
    )) as (string | number)[];
    const [status = '', size = 0, next = '', queued = 0, ...flat] = reply;
    if (status === '') return undefined;
    const items: { itemKey: string; dueAt: number; item: ItemRecord | undefined }[] = [];
    for (let index = 0; index + 2 < flat.length; index += 3) {
      const itemKey = String(flat[index]);
      const json = String(flat[index + 2]);
      items.push({
        itemKey,
        dueAt: Number(flat[index + 1]),
        item: json === '' ? undefined : itemFromStored(runId, itemKey, json),
      });
    }
    return {
      runStatus: status as OutcomeStatus,
      laneSize: Number(size),
      nextDueAt: next === '' ? undefined : Number(next),
      queued: Number(queued),
      items,
    };
  }

  /**
   * Records several items of a run and moves each in its lane, while `job` is still this
   * worker's, and then moves or keeps the job as it asks (see {@link OwnedJobStep}): one script,
   * one round trip (writeLane-16.lua). Throws `job.refused`'s error when the job is not this
   * worker's (nothing is recorded), and UnknownRunError.
   */
  async write(
    runId: string,
    lane: number,
    writes: readonly ItemWrite[],
    job: OwnedJobStep,
  ): Promise<LaneWritten> {
    const batch = this.items.batch(runId);
    const args: (string | number)[] = [...job.args, ...batch.args];
    for (const write of writes) {
      args.push(
        ...batch.argsOf(write),
        write.dueAt === undefined ? '' : write.dueAt === null ? '-' : Math.round(write.dueAt),
        fenceArgument(write.fence),
      );
    }
    const keys = [
      ...job.keys,
      ...batch.keys,
      this.laneKeys.lane(runId, lane),
      this.laneKeys.laneQueue(runId),
      this.laneKeys.fences(runId),
    ];
    const reply = (await this.items.writing(runId, () =>
      writeLaneScript.run(this.redis, keys, args),
    )) as string[];
    if (reply[0] === REFUSED) throw job.refused(Number(reply[1]));
    const results: ItemWritten[] = [];
    let at = 1;
    for (const write of writes) {
      const fence = reply[at] ?? '';
      const length = Number(reply[at + 1] ?? 0);
      const one = reply.slice(at + 2, at + 2 + length);
      at += 2 + length;
      if (fence === STALE_STEP) {
        results.push({ stale: true });
        continue;
      }
      results.push({
        stale: false,
        fence: fence === '' ? undefined : Number(fence),
        record:
          write.update === undefined
            ? undefined
            : batch.resultOf(write.itemKey, write.update.status, one),
      });
    }
    return { results, stepResult: Number(reply[0] ?? 0) };
  }
}

/** A write's fence as writeLane-16.lua takes it. */
function fenceArgument(fence: StepFence | undefined): string {
  if (fence === undefined) return '';
  if ('held' in fence) return String(fence.held);
  return fence.from === undefined ? 'take' : `take:${fence.from}`;
}
