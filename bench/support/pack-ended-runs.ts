import type { Redis } from 'ioredis';
import { PackingSweeper } from '../../src/outcomes/packing-sweeper.js';
import { silentLogger } from '../../src/shared/logger.js';

/**
 * Packs every ended run of the outcome store under `prefix` now, with the sweeper a scheduler
 * runs (`outcomes.packAfterSeconds` after each run's end): a bench's store as paw leaves it.
 */
export async function packEndedRuns(redis: Redis, prefix: string): Promise<void> {
  const sweeper = new PackingSweeper({ redis, prefix, packAfterMs: 0, logger: silentLogger() });
  await sweeper.sweepOnce();
  await sweeper.stop();
}
