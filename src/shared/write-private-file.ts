import { randomBytes } from 'node:crypto';
import { chmod, lstat, open, readlink, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

export interface PrivateWriteOptions {
  /**
   * Called with the folder of the file actually written (its links followed) right before
   * writing, to refuse one that others could write in (by throwing).
   */
  readonly checkFolder?: ((folder: string) => Promise<void>) | undefined;
}

/**
 * Writes a file only its owner can read (mode 0600), atomically: the content goes to a
 * temporary file beside it, which is flushed and renamed over the target, so a reader never
 * sees a half-written secret and the secret never sits in a file with wider permissions.
 *
 * A symbolic link is written through, to the file it names: renaming over the link itself
 * would replace it with a regular file and leave its target (paw's own credentials file, say)
 * holding a secret that no longer works.
 */
export async function writePrivateFileAtomically(
  path: string,
  content: string,
  options: PrivateWriteOptions = {},
): Promise<void> {
  const target = await throughLinks(resolve(path));
  await options.checkFolder?.(dirname(target));
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    // The umask may have narrowed the mode further; make it exactly 0600.
    await chmod(temporary, 0o600);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(target));
}

/** Makes a rename in `directory` durable across a power cut. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not every file system lets a directory be synced; the rename itself is still atomic.
  }
}

/** Links followed at most (a loop of links is an error, as the operating system says). */
const MAX_LINKS = 20;

/** The file a path names once its symbolic links are followed (existing or not). */
export async function throughLinks(path: string): Promise<string> {
  let current = path;
  for (let hop = 0; hop < MAX_LINKS; hop++) {
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw error;
    }
    if (!isLink) return current;
    current = resolve(dirname(current), await readlink(current));
  }
  throw Object.assign(new Error(`${path}: too many levels of symbolic links`), { code: 'ELOOP' });
}
