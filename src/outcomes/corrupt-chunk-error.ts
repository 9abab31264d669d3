/**
 * A packed chunk of a run's items (packed-chunks.ts) that cannot be read: it does not inflate,
 * inflates beyond what its items can be, or does not hold items. Only someone with write access
 * to Redis makes one; the run's items are then lost to paw, and nothing else is.
 */
export class CorruptChunkError extends Error {
  override readonly name = 'CorruptChunkError';
  constructor(
    readonly runId: string,
    readonly why: string,
  ) {
    super(
      `run ${runId}: a packed chunk of its items is corrupt (${why}), so its items cannot be ` +
        'read; other runs are not affected. The chunk is in Redis as written: restore it from ' +
        'a backup, or let retention trim the run',
    );
  }
}
