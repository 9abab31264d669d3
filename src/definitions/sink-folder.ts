import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../errors/usage-error.js';

/**
 * Why a sink's folder is unsafe, or undefined when it is not: a folder other users can write
 * lets them plant a rotation journal (or a link) beside the sink. A folder that does not exist
 * yet is not judged here (writing the sink will fail on it, saying so).
 */
export async function sinkFolderProblem(sink: string): Promise<string | undefined> {
  const folder = dirname(resolve(sink));
  let mode: number;
  try {
    mode = (await stat(folder)).mode;
  } catch {
    return undefined;
  }
  if ((mode & 0o002) === 0) return undefined;
  return (
    `the sink's folder ${folder} is world-writable (mode ${(mode & 0o7777).toString(8)}): it can be ` +
    'written by other users, who could plant a rotation journal or a link beside the sink'
  );
}

/** The fix for {@link sinkFolderProblem}. */
export function sinkFolderFix(sink: string): string {
  return `chmod o-w ${dirname(resolve(sink))}, or put the sink in a folder only paw's user can write`;
}

/** Refuses a sink whose folder others can write (at run time, as validation does). */
export async function assertPrivateSinkFolder(sink: string): Promise<void> {
  const problem = await sinkFolderProblem(sink);
  if (problem !== undefined) throw new UsageError(`${problem}; ${sinkFolderFix(sink)}`);
}
