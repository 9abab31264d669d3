import { dirname, resolve } from 'node:path';
import { UsageError } from '../shared/usage-error.js';
import { folderExposure } from '../shared/private-folder.js';
import { throughLinks } from '../shared/write-private-file.js';

/** What is wrong with a folder a rotation writes in, and the fix. */
export interface SinkFolderProblem {
  readonly message: string;
  readonly fix: string;
}

/**
 * Why a sink's folders are unsafe, or undefined when they are not. A rotation writes in two:
 * the sink's own folder (its rotation journal goes beside it) and, when the sink is a symbolic
 * link, the folder of the file the link leads to (where the secret is written). Someone else who
 * can write in either could plant a journal or a link, or replace the file. A folder that does
 * not exist yet is not judged here (writing the sink will fail on it, saying so).
 */
export async function sinkFolderProblem(sink: string): Promise<SinkFolderProblem | undefined> {
  const path = resolve(sink);
  const target = await throughLinks(path).catch(() => path);
  for (const folder of new Set([dirname(path), dirname(target)])) {
    const problem = await writtenFolderProblem(folder);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Refuses a sink whose folders others can write (at run time, as validation does). */
export async function assertPrivateSinkFolder(sink: string): Promise<void> {
  const problem = await sinkFolderProblem(sink);
  if (problem !== undefined) throw new UsageError(`${problem.message}; ${problem.fix}`);
}

/**
 * Refuses to write a sink or its journal into `folder` when others can write in it: the check
 * a rotation makes on the folder of each file it actually writes, links followed, right before
 * writing it (writePrivateFileAtomically's `checkFolder`).
 */
export async function assertPrivateWrittenFolder(folder: string): Promise<void> {
  const problem = await writtenFolderProblem(folder);
  if (problem !== undefined) throw new UsageError(`${problem.message}; ${problem.fix}`);
}

async function writtenFolderProblem(folder: string): Promise<SinkFolderProblem | undefined> {
  const exposure = await folderExposure(folder);
  if (exposure === undefined) return undefined;
  return {
    message:
      `the sink's folder ${folder} ${exposure.problem}: it can be written by ${exposure.who}, ` +
      'who could plant a rotation journal or a link beside the sink, or replace it',
    fix: `${exposure.fix}, or put the sink in a folder only paw's user can write`,
  };
}
