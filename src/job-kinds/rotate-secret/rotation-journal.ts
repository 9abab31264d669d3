import { rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { Secret } from '../../config/secret.js';
import { UsageError } from '../../shared/usage-error.js';
import { readCappedFile } from '../../shared/read-capped-file.js';
import type { Logger } from '../../shared/logger.js';
import { assertPrivateWrittenFolder } from '../../definitions/sink-folder.js';
import { writeFileAtomically } from '../../platform/auth/credentials-file.js';

/**
 * Where a rotation stands:
 * - `rotating`: about to rotate, or rotated and the new secret maybe not stored (lost in a
 *   crash): the sink may hold a secret that no longer works;
 * - `sink-written`: the new secret is in the sink; what is left is checking it and cleaning up.
 */
type RotationPhase = 'rotating' | 'sink-written';

/**
 * The rotation journal: a file beside the sink (`.<sink name>.rotation`, mode 0600, written
 * atomically) that exists exactly while a rotation of that sink is unfinished. It is how a
 * rotation interrupted by a crash is finished by whoever comes next (the job's retry, the next
 * rotation of the sink, or a worker starting up).
 *
 * It holds a secret only when paw rotates its own account: the recovery token, an access token
 * issued before the rotation that stays valid after the old secret dies, so that paw can rotate
 * again if the new secret was lost. It sits in a 0600 file beside the secret it can replace, is
 * never copied to Redis, job data or logs, and is revoked and deleted when the rotation ends.
 */
export interface RotationJournal {
  readonly runId: string;
  readonly clientId: string;
  /** The sink's absolute path. */
  readonly sink: string;
  readonly phase: RotationPhase;
  readonly startedAt: string;
  readonly updatedAt: string;
  /** Only when the account rotated is paw's own (see above). */
  readonly recoveryToken?: Secret;
  /** ISO 8601: when the recovery token expires. */
  readonly recoveryTokenExpiresAt?: string;
}

const journalSchema = z.strictObject({
  version: z.literal(1),
  runId: z.string().min(1),
  clientId: z.string().min(1),
  sink: z.string().min(1),
  phase: z.enum(['rotating', 'sink-written']),
  startedAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  recoveryToken: z.string().min(1).optional(),
  recoveryTokenExpiresAt: z.iso.datetime().optional(),
});

/** The journal file of a sink: hidden, in the same folder (same file system, same permissions). */
export function journalPathOf(sink: string): string {
  return join(dirname(sink), `.${basename(sink)}.rotation`);
}

/**
 * The journal of `sink`, or undefined when no rotation of it is unfinished. A journal is bound
 * to its rotation: one that names another sink or another account than `expected` (planted in
 * the folder, or left by another definition) is ignored with a warning, never acted on, since
 * acting on it would write an account's credentials wherever it says.
 */
export async function readJournal(
  sink: string,
  expected: { readonly clientId: string },
  logger: Logger,
): Promise<RotationJournal | undefined> {
  const file = journalPathOf(sink);
  let text: string;
  try {
    // A journal is a few hundred bytes.
    text = await readCappedFile(file, { maxBytes: 64 * 1024, what: 'a rotation journal' });
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(
      `${file}: the rotation journal cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause: error },
    );
  }
  let parsed: z.output<typeof journalSchema>;
  try {
    parsed = journalSchema.parse(JSON.parse(text));
  } catch {
    // Written atomically by paw, so this is not a torn write: someone edited it. Say so, and
    // never repeat its content (it may hold a token).
    throw new UsageError(
      `${file}: not a rotation journal paw can read; check the sink ${sink} by hand, then delete the journal`,
    );
  }
  if (resolve(parsed.sink) !== resolve(sink) || parsed.clientId !== expected.clientId) {
    logger.warn(
      {
        journal: file,
        sink,
        clientId: expected.clientId,
        journalSink: parsed.sink,
        journalClientId: parsed.clientId,
      },
      'the rotation journal beside the sink does not belong to this rotation; ignored (delete it once checked)',
    );
    return undefined;
  }
  return {
    runId: parsed.runId,
    clientId: parsed.clientId,
    sink: parsed.sink,
    phase: parsed.phase,
    startedAt: parsed.startedAt,
    updatedAt: parsed.updatedAt,
    ...(parsed.recoveryToken === undefined
      ? {}
      : { recoveryToken: new Secret(parsed.recoveryToken) }),
    ...(parsed.recoveryTokenExpiresAt === undefined
      ? {}
      : { recoveryTokenExpiresAt: parsed.recoveryTokenExpiresAt }),
  };
}

/**
 * Writes (or replaces) the journal of `journal.sink`: 0600, atomically, flushed to disk, and
 * only into a folder no one else can write in.
 */
export async function writeJournal(journal: RotationJournal): Promise<void> {
  const content = {
    version: 1,
    runId: journal.runId,
    clientId: journal.clientId,
    sink: journal.sink,
    phase: journal.phase,
    startedAt: journal.startedAt,
    updatedAt: journal.updatedAt,
    ...(journal.recoveryToken === undefined
      ? {}
      : { recoveryToken: journal.recoveryToken.reveal() }),
    ...(journal.recoveryTokenExpiresAt === undefined
      ? {}
      : { recoveryTokenExpiresAt: journal.recoveryTokenExpiresAt }),
  };
  await writeFileAtomically(journalPathOf(journal.sink), `${JSON.stringify(content, null, 2)}\n`, {
    checkFolder: assertPrivateWrittenFolder,
  });
}

/** Deletes the journal of `sink` (nothing if there is none). */
export async function deleteJournal(sink: string): Promise<void> {
  await rm(journalPathOf(sink), { force: true });
}
