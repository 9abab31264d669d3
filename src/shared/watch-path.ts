import { realpathSync, watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** A watch on a path; `close` ends it. */
export interface PathWatch {
  close(): void;
}

export interface WatchPathOptions {
  /** Called on every event that may change what the path holds (callers let them settle). */
  readonly onChange: () => void;
  /** Called when the path cannot be watched (the parent's watch failed): reloading by hand still works. */
  readonly onError: (error: Error) => void;
}

/**
 * Watches what `path` (a folder or a file) holds, also where it is reached through links that
 * are swapped: a Kubernetes ConfigMap or Secret volume is `key -> ..data/key` and
 * `..data -> ..2026_11_26_10_00_00.123456789`, and kubelet updates it by writing a new
 * timestamped folder and renaming a new `..data` over the old one. A watch on the path alone
 * follows its links once, when it is set, and so keeps watching the old folder (deleted right
 * after the swap) and sees nothing more. So the folder holding the path is watched too, for the
 * path itself and for `..`-prefixed names (kubelet's); and after every event the watch on the
 * path is set again if the path now leads elsewhere (or did not exist before). Throws when the
 * folder holding the path cannot be watched (it does not exist).
 */
export function watchPath(path: string, options: WatchPathOptions): PathWatch {
  const name = basename(path);
  let closed = false;
  let target: string | undefined;
  let pathWatcher: FSWatcher | undefined;

  const armPath = (): void => {
    let now: string | undefined;
    try {
      now = realpathSync(path);
    } catch {
      now = undefined;
    }
    if (closed || (now === target && pathWatcher !== undefined)) return;
    pathWatcher?.close();
    pathWatcher = undefined;
    target = now;
    if (now === undefined) return; // not there (yet): the parent's watch sees it appear
    try {
      pathWatcher = watch(path, { persistent: false }, changed);
      // The folder it led to was deleted (an old timestamped folder): arm again where it leads now.
      pathWatcher.on('error', () => changed());
    } catch {
      // Gone between realpath and watch: the parent's watch sees what comes next.
    }
  };
  function changed(): void {
    if (closed) return;
    options.onChange();
    armPath();
  }

  const parentWatcher = watch(dirname(path), { persistent: false }, (_event, entry) => {
    // Other files next to the path are not its business.
    const file = entry?.toString();
    if (file === undefined || file === name || file.startsWith('..')) changed();
  });
  parentWatcher.on('error', (error) => options.onError(error));
  armPath();

  return {
    close: () => {
      closed = true;
      parentWatcher.close();
      pathWatcher?.close();
    },
  };
}
