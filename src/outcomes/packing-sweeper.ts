import type { Redis } from 'ioredis';
import type { Logger } from '../shared/logger.js';
import { OutcomeKeys } from './outcome-keys.js';
import { RunPacker } from './run-packer.js';

/** Runs whose status and packing are read per round trip when the sweeper looks for runs to pack. */
const BACKFILL_PAGE = 200;
/** The sweeper looks for ended runs this often at least, however long they wait to be packed. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export interface PackingSweeperOptions {
  readonly redis: Redis;
  readonly prefix: string;
  /** How long after its end a run is packed (`outcomes.packAfterSeconds`). */
  readonly packAfterMs: number;
  readonly logger: Logger;
  readonly clock?: () => Date;
}

/**
 * Packs ended runs' items (src/outcomes/run-packer.ts) `packAfterMs` after they end, on a timer.
 * Replicas may sweep at once: a run is packed by one, the others find it busy or packed. At
 * start it also queues the ended runs that were never queued for packing (recorded before paw
 * packed runs, or by a version that did not), so an upgraded store shrinks too.
 */
export class PackingSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private readonly keys: OutcomeKeys;
  private readonly packer: RunPacker;
  private backfilled = false;

  constructor(private readonly options: PackingSweeperOptions) {
    this.keys = new OutcomeKeys(options.prefix);
    this.packer = new RunPacker(options.redis, this.keys, options.clock);
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.stopping = false;
    const interval = Math.min(MAX_SWEEP_INTERVAL_MS, Math.max(1_000, this.options.packAfterMs / 2));
    this.timer = setInterval(() => void this.sweepOnce(), interval);
    this.timer.unref();
    void this.sweepOnce();
  }

  /** Stops the timer and waits for the run being packed (a sweep stops between runs). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Packs the runs due now; resolves when done. */
  sweepOnce(): Promise<void> {
    this.running ??= this.sweep().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async sweep(): Promise<void> {
    const { logger } = this.options;
    try {
      if (!this.backfilled) {
        await this.backfill();
        this.backfilled = true;
      }
      const packed = await this.packer.packEnded(this.options.packAfterMs, () => this.stopping);
      if (packed.runs > 0) logger.debug(packed, 'packed ended runs');
    } catch (error) {
      logger.warn({ err: error }, 'packing ended runs failed; retrying at the next sweep');
    }
  }

  /** Queues for packing every ended run with items that is neither packed nor queued. */
  private async backfill(): Promise<void> {
    const { redis } = this.options;
    for (let offset = 0; ; offset += BACKFILL_PAGE) {
      const runIds = await redis.zrange(
        this.keys.runs(),
        String(offset),
        String(offset + BACKFILL_PAGE - 1),
      );
      if (runIds.length === 0) return;
      const reads = redis.pipeline();
      for (const runId of runIds) {
        reads.hmget(this.keys.run(runId), 'status', 'finishedAt', 'packed', 'count:total');
      }
      const replies = (await reads.exec()) ?? [];
      const queue = redis.pipeline();
      let queued = 0;
      runIds.forEach((runId, index) => {
        const [error, fields] = replies[index] ?? [null, []];
        if (error !== null) return;
        const [status, finishedAt, packed, total] = fields as (string | null)[];
        if (status === null || status === undefined || packed !== null) return;
        if (Number(total ?? 0) === 0) return;
        if (status === 'queued' || status === 'running') return;
        queue.zadd(this.keys.unpacked(), 'NX', Number(finishedAt ?? 0) || 0, runId);
        queued++;
      });
      if (queued > 0) await queue.exec();
      if (runIds.length < BACKFILL_PAGE) return;
    }
  }
}
