import { randomBytes } from 'node:crypto';
import { chmod, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Writes a file only its owner can read (mode 0600), atomically: the content goes to a
 * temporary file beside it, which is flushed and renamed over the target, so a reader never
 * sees a half-written secret and the secret never sits in a file with wider permissions.
 */
export async function writePrivateFileAtomically(path: string, content: string): Promise<void> {
  const target = resolve(path);
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
