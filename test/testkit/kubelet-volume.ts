import { mkdir, mkdtemp, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const DATA = '..data';
const DATA_TMP = '..data_tmp';

/**
 * A folder laid out and updated exactly as kubelet's atomic writer does for a ConfigMap or
 * Secret volume (Kubernetes pkg/volume/util/atomic_writer.go):
 *
 * ```
 * dir/..2026_11_26_10_00_00.123456789/night.yaml   the files, in a timestamped folder
 * dir/..data -> ..2026_11_26_10_00_00.123456789    the current one
 * dir/night.yaml -> ..data/night.yaml              one link per key
 * ```
 *
 * An update writes a new timestamped folder, points `..data_tmp` at it, renames `..data_tmp`
 * over `..data` (the one atomic step), adds links for new keys, removes those of keys that are
 * gone, and deletes the old folder. Keys may hold a `/` (a volume's `items[].path`): the link is
 * then on the top folder (`jobs -> ..data/jobs`).
 */
export class KubeletVolume {
  private constructor(
    readonly dir: string,
    private keys: readonly string[],
    private sequence: number,
  ) {}

  /** A new volume holding `files` (key → content), in a new temporary folder or in `dir`. */
  static async create(files: Record<string, string>, dir?: string): Promise<KubeletVolume> {
    const folder = dir ?? (await mkdtemp(join(tmpdir(), 'paw-kubelet-')));
    await mkdir(folder, { recursive: true });
    const volume = new KubeletVolume(folder, [], 0);
    await volume.update(files);
    return volume;
  }

  /** Replaces the volume's content with `files`, as kubelet does when the object changes. */
  async update(files: Record<string, string>): Promise<void> {
    const old = await readlink(join(this.dir, DATA)).catch(() => undefined);
    this.sequence += 1;
    const stamp = `..2026_11_26_10_00_00.${String(this.sequence).padStart(9, '0')}`;
    for (const [key, content] of Object.entries(files)) {
      const file = join(this.dir, stamp, key);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, content);
    }
    await mkdir(join(this.dir, stamp), { recursive: true });
    await symlink(stamp, join(this.dir, DATA_TMP));
    await rename(join(this.dir, DATA_TMP), join(this.dir, DATA));
    const tops = (keys: readonly string[]): Set<string> =>
      new Set(keys.map((key) => key.split('/')[0] ?? key));
    const before = tops(this.keys);
    const after = tops(Object.keys(files));
    for (const top of after) {
      if (!before.has(top)) await symlink(join(DATA, top), join(this.dir, top));
    }
    for (const top of before) {
      if (!after.has(top)) await unlink(join(this.dir, top));
    }
    this.keys = Object.keys(files);
    if (old !== undefined) await rm(join(this.dir, old), { recursive: true, force: true });
  }
}
