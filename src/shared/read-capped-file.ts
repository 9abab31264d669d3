import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
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

/**
 * A path that leads to something other than a regular file: a named pipe (FIFO), a device, a
 * folder, a socket. paw reads only regular files: a FIFO would block the reader until someone
 * writes to it (forever, silently: a whole process stalls on a synchronous read), a device may
 * never end (`/dev/zero`) or never answer (a tty), and a folder is a mistake. The message names
 * the file and what it is.
 */
export class NotARegularFileError extends UsageError {
  constructor(
    file: string,
    /** What the path is: `a named pipe (FIFO)`, `a folder`. */
    readonly kind: string,
    cap: FileCap,
  ) {
    super(
      `${file} is ${kind}, not a regular file: paw reads ${cap.what} only from a regular file; ` +
        'check that the setting names the right file',
    );
  }
}

/**
 * Opened without blocking: opening a FIFO for reading otherwise waits for a writer, before any
 * check can run. On a regular file O_NONBLOCK changes nothing; anything else is refused right
 * after the open, from its fstat (of what was opened, not of what the path led to a moment
 * earlier).
 */
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** Bytes read at a time: a small file is read in one go. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Reads a small text file (UTF-8), refusing one over `cap.maxBytes` with a
 * {@link FileTooLargeError} and anything but a regular file (a FIFO, a device, a folder) with a
 * {@link NotARegularFileError}, both at once: the size is checked before reading, and at most
 * `maxBytes + 1` bytes are ever read (a file that grows while it is read is cut off there).
 * Other failures (ENOENT, EACCES) are thrown as the file system reports them, for the caller
 * to explain.
 */
export async function readCappedFile(file: string, cap: FileCap): Promise<string> {
  const handle = await open(file, OPEN_FLAGS);
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
  const descriptor = openSync(file, OPEN_FLAGS);
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

/** A regular file's size, refused at once when over the cap; anything else refused at once. */
function regularFileSize(stats: Stats, file: string, cap: FileCap): number {
  if (!stats.isFile()) throw new NotARegularFileError(file, fileKindOf(stats), cap);
  if (stats.size > cap.maxBytes) throw new FileTooLargeError(file, cap, stats.size);
  return stats.size;
}

/** What a path that is not a regular file is, for a message. */
function fileKindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a folder';
  if (stats.isSocket()) return 'a socket';
  return stats.isFile() ? 'a regular file' : 'not a regular file';
}

/** Room for the whole file and one byte more (which tells a file that grew while it was read). */
function bufferBytes(size: number, cap: FileCap): number {
  return Math.min(cap.maxBytes, size) + 1;
}

/**
 * The text read, or the refusal when more than the cap came (a regular file that grew while it
 * was read). A byte-order mark is dropped, as every JSON and YAML reader expects.
 */
function decode(file: string, cap: FileCap, buffer: Buffer, length: number, size: number): string {
  if (length > cap.maxBytes) {
    throw new FileTooLargeError(file, cap, size > length ? size : undefined);
  }
  const text = buffer.toString('utf8', 0, length);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
