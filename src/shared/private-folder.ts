import { stat } from 'node:fs/promises';

/** Why others could change the files in a folder, and what to do about it. */
export interface FolderExposure {
  /** `is world-writable (mode 777)`, `belongs to another user (uid 65534)`. */
  readonly problem: string;
  /** Who could write in it: `other users`, `the members of its group`, `that user`. */
  readonly who: string;
  readonly fix: string;
}

/**
 * Whether someone other than paw's user could create, replace or delete files in `folder`: it
 * is writable by its group or by everyone (a sticky bit does not stop a new file being planted),
 * or it belongs to another user (root excepted: root can do anything anyway). Undefined when
 * only paw's user (and root) can, or when the folder does not exist (writing in it will fail,
 * saying so).
 */
export async function folderExposure(folder: string): Promise<FolderExposure | undefined> {
  let mode: number;
  let owner: number;
  try {
    ({ mode, uid: owner } = await stat(folder));
  } catch {
    return undefined;
  }
  const octal = (mode & 0o7777).toString(8);
  if ((mode & 0o002) !== 0) {
    return {
      problem: `is world-writable (mode ${octal})`,
      who: 'other users',
      fix: `chmod go-w ${folder}`,
    };
  }
  if ((mode & 0o020) !== 0) {
    return {
      problem: `is group-writable (mode ${octal})`,
      who: 'the members of its group',
      fix: `chmod go-w ${folder}`,
    };
  }
  const self = process.getuid?.();
  if (self !== undefined && owner !== self && owner !== 0) {
    return {
      problem: `belongs to another user (uid ${owner})`,
      who: 'that user',
      fix: `chown ${self} ${folder}`,
    };
  }
  return undefined;
}
