import { createHash } from 'node:crypto';
import { statSync, type BigIntStats } from 'node:fs';
import { readCappedFileSync, type FileCap } from './read-capped-file.js';

/**
 * How long after a file's last change its metadata may still be the same after another
 * change. File systems stamp times from a coarse clock (a kernel tick: up to 10 ms on Linux,
 * 1 s on ext3, 2 s on FAT), so two writes within one tick leave mtime, ctime and (for the same
 * length) size all unchanged. A read that began within this much of the last change may have
 * raced a write the metadata cannot show: the file is read again until a read begins later.
 */
const TIMESTAMP_TICK_NS = 2_000_000_000n;

/**
 * A file read again whenever its content may have changed, for what paw re-reads while it runs
 * (the ops credential files). The metadata that tells a change is the inode and device (a file
 * renamed over it, as kubelet does), the size, and the change time as well as the modification
 * time: `touch -d` or `utimes` can set an mtime back to what it was, but nothing but the clock
 * sets ctime, and every write moves it. Within a timestamp tick of the last change the file is
 * read every time (see TIMESTAMP_TICK_NS); its content's hash then says whether it changed.
 */
export class RereadableFile {
  private version: string | undefined;
  private racyUntilReadAfterNs: bigint | undefined;
  private digest: string | undefined;

  constructor(
    readonly file: string,
    private readonly cap: FileCap,
  ) {}

  /**
   * The file's text when it changed since the last call (on the first call, or after
   * {@link forget}: always), undefined when it did not. Throws as readCappedFileSync does (a
   * missing file, a FIFO, a file over the cap).
   */
  changedText(): string | undefined {
    const stats = statSync(this.file, { bigint: true });
    const version = versionOf(stats);
    const readStartNs = BigInt(Date.now()) * 1_000_000n;
    const racy =
      this.racyUntilReadAfterNs !== undefined && readStartNs <= this.racyUntilReadAfterNs;
    if (version === this.version && !racy) return undefined;
    const text = readCappedFileSync(this.file, this.cap);
    this.version = version;
    this.racyUntilReadAfterNs = stats.ctimeNs + TIMESTAMP_TICK_NS;
    const digest = createHash('sha256').update(text).digest('hex');
    if (digest === this.digest) return undefined;
    this.digest = digest;
    return text;
  }

  /** Forgets what was read: the next {@link changedText} returns the text whatever it is. */
  forget(): void {
    this.version = undefined;
    this.racyUntilReadAfterNs = undefined;
    this.digest = undefined;
  }
}

function versionOf(stats: BigIntStats): string {
  return [stats.dev, stats.ino, stats.size, stats.mtimeNs, stats.ctimeNs].join(':');
}
