import { closeSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { UsageError } from './usage-error.js';
import { describeSize } from './describe-size.js';

/** How much of a file paw reads, and what to call it in a refusal. */
export interface FileCap {
  /** The most bytes the file may hold. */
  readonly maxBytes: number;
  /** What the file is, for the message: `a credentials file`, `a PEM file`. */
  readonly what: string;
  /** What to do about a file over the cap, when there is more to say than "check the path". */
  readonly fix?: string;
}

/**
 * A file over its reader's cap. The message names the file, its size when the file system
 * knows it, and the cap; never a byte of its content (it may be a secret pasted in the wrong
 * place).
 */
export class FileTooLargeError extends UsageError {
  constructor(file: string, cap: FileCap, size: number | undefined) {
    super(
      `${file}${size === undefined ? '' : ` (${describeSize(size)})`} is more than ${describeSize(cap.maxBytes)}, ` +
        `the most paw reads from ${cap.what}; ${cap.fix ?? 'check that the setting names the right file'}`,
    );
  }
}

/** Bytes read at a time: a small file is read in one go. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a small text file (UTF-8), refusing one over `cap.maxBytes` with a
 * {@link FileTooLargeError}. At most `maxBytes + 1` bytes are ever read, whatever the file is:
 * a regular file's size is checked first, and a device or a pipe that never ends (`/dev/zero`)
 * is cut off there instead of filling the memory. Other failures (ENOENT, EACCES) are thrown
 * as the file system reports them, for the caller to explain.
 */
export async function readCappedFile(file: string, cap: FileCap): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const size = regularFileSize(await handle.stat(), file, cap);
    const buffer = Buffer.alloc(bufferBytes(size, cap));
    let length = 0;
    for (;;) {
      const want = Math.min(CHUNK_BYTES, buffer.length - length);
      if (want === 0) break;
      const { bytesRead } = await handle.read(buffer, length, want, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return decode(file, cap, buffer, length, size);
  } finally {
    await handle.close();
  }
}

/**
 * {@link readCappedFile} of a file the user named: a missing or unreadable one is a
 * {@link UsageError} whose message `explain` writes from the file system's code (`ENOENT`,
 * `EACCES`).
 */
export async function readNamedFile(
  file: string,
  cap: FileCap,
  explain: (code: string | undefined) => string,
): Promise<string> {
  try {
    return await readCappedFile(file, cap);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(explain((error as NodeJS.ErrnoException).code), { cause: error });
  }
}

/** {@link readCappedFile}, synchronously: for what is read while settings are turned into options. */
export function readCappedFileSync(file: string, cap: FileCap): string {
  const descriptor = openSync(file, 'r');
  try {
    const size = regularFileSize(fstatSync(descriptor), file, cap);
    const buffer = Buffer.alloc(bufferBytes(size, cap));
    let length = 0;
    for (;;) {
      const want = Math.min(CHUNK_BYTES, buffer.length - length);
      if (want === 0) break;
      const bytesRead = readSync(descriptor, buffer, length, want, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return decode(file, cap, buffer, length, size);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * A regular file's size, refused at once when over the cap; undefined for a device or a pipe,
 * whose size says nothing.
 */
function regularFileSize(stats: Stats, file: string, cap: FileCap): number | undefined {
  if (!stats.isFile()) return undefined;
  if (stats.size > cap.maxBytes) throw new FileTooLargeError(file, cap, stats.size);
  return stats.size;
}

/** Room for the whole file and one byte more (which tells a file that grew, or never ends). */
function bufferBytes(size: number | undefined, cap: FileCap): number {
  return Math.min(cap.maxBytes, size ?? cap.maxBytes) + 1;
}

/**
 * The text read, or the refusal when more than the cap came (a regular file that grew while it
 * was read, or a device). A byte-order mark is dropped, as every JSON and YAML reader expects.
 */
function decode(
  file: string,
  cap: FileCap,
  buffer: Buffer,
  length: number,
  size: number | undefined,
): string {
  if (length > cap.maxBytes) {
    throw new FileTooLargeError(file, cap, size !== undefined && size > length ? size : undefined);
  }
  const text = buffer.toString('utf8', 0, length);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
