import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../../shared/usage-error.js';
import { writeCredentialsFile } from '../../platform/auth/credentials-file.js';
import {
  assertPrivateSinkFolder,
  assertPrivateWrittenFolder,
} from '../../definitions/sink-folder.js';
import type { IssuedAccessToken } from '../../platform/auth/token-request.js';
import { isRetryable } from '../../platform/http/is-retryable.js';
import {
  AuthenticationError,
  ProtocolError,
  isPlatformError,
} from '../../platform/http/platform-errors.js';
import { isPawsOwnAccount } from './own-account.js';
import type { RotateSecretDependencies } from './rotation-dependencies.js';
import {
  deleteJournal,
  readJournal,
  writeJournal,
  type RotationJournal,
} from './rotation-journal.js';
import { checkSink, readSink } from './sink.js';

/** What one rotation request came to. */
export interface RotationResult {
  /** Secrets rotated by this call (0 when an earlier attempt of the same run had finished). */
  readonly rotations: number;
  /** Whether an interrupted rotation of this sink was finished first. */
  readonly recoveredInterrupted: boolean;
  /** Whether the account is the one paw runs as (paw switched to the new secret). */
  readonly ownAccount: boolean;
  /** A token address the platform's answer named, refused (never written). */
  readonly refusedAccessTokenUri?: string | undefined;
  /**
   * Quorum-authorization policies the platform says the rotation suspended: changes they
   * guarded no longer wait for approval until someone reviews them.
   */
  readonly suspendedTprPolicyIds?: readonly string[] | undefined;
}

export interface RotationRequest {
  readonly runId: string;
  readonly clientId: string;
  /** Absolute path of the sink. */
  readonly sink: string;
}

/**
 * The secret was rotated but is not yet stored and proven. Always retryable: the journal stays,
 * and the next attempt (or a worker starting up) finds the sink and repairs it.
 */
class RotationIncompleteError extends Error {
  override readonly name = 'RotationIncompleteError';
  constructor(clientId: string, sink: string, cause: unknown) {
    super(
      `the secret of ${clientId} was rotated but not yet stored and proven in ${sink} ` +
        `(${cause instanceof Error ? cause.message : String(cause)}); the rotation journal ` +
        'stays, and the retry, the next rotation or a worker starting up repairs the sink',
      { cause },
    );
  }
}

/** Token requests made to prove that a freshly stored secret works, before giving up. */
const VERIFY_ATTEMPTS = 4;

/**
 * The rotation protocol (docs/secret-rotation.md has the crash analysis, step by step):
 *
 * 1. If a journal is beside the sink, an earlier rotation was interrupted: finish it first
 *    ({@link finishInterrupted}).
 * 2. Check the sink may be written (absent, or this account's credentials on this platform).
 * 3. For paw's own account only: take a recovery token, an access token issued with the
 *    current secret that outlives it, at least `rotation.minRecoveryTokenSeconds`.
 * 4. Record the sink in Redis (so a starting worker looks for its journal), then write the
 *    journal (`rotating`, with the recovery token if any).
 * 5. Rotate (GraphQL `rotateServiceAccountSecret`); the old secret dies now and the new one
 *    exists only in this process.
 * 6. Write the sink atomically (0600); for paw's own account, switch paw to it at once.
 * 7. Journal `sink-written`; prove the new secret authenticates (a token request).
 * 8. The caller records the outcome, then calls {@link complete}: the journal is deleted and the
 *    recovery token revoked.
 *
 * Whoever holds the account's lease may run it; callers take the lease.
 */
export class SecretRotation {
  constructor(private readonly dependencies: RotateSecretDependencies) {}

  async rotate(request: RotationRequest, signal?: AbortSignal): Promise<RotationResult> {
    const { platform, settings, crashPoints, logger } = this.dependencies;
    const { runId, clientId, sink } = request;
    await assertPrivateSinkFolder(sink);
    const ownAccount = await isPawsOwnAccount(platform, settings, clientId, sink);

    let recoveredInterrupted = false;
    const leftover = await readJournal(sink, { clientId }, logger);
    if (leftover !== undefined) {
      const { rotated } = await this.finishInterrupted(leftover, signal);
      recoveredInterrupted = true;
      if (leftover.runId === runId && (rotated || leftover.phase === 'sink-written')) {
        // An earlier attempt of this run rotated; its secret (or its replacement) is stored.
        return { rotations: rotated ? 1 : 0, recoveredInterrupted, ownAccount };
      }
    }

    await readSink(platform, sink, clientId);
    const recoveryToken = ownAccount ? await this.recoveryToken(signal) : undefined;
    crashPoints.reach('rotate.after-recovery-token');

    await this.dependencies.pendingSinks.add(sink, clientId);
    const now = new Date().toISOString();
    const journal: RotationJournal = {
      runId,
      clientId,
      sink,
      phase: 'rotating',
      startedAt: now,
      updatedAt: now,
      ...(recoveryToken === undefined
        ? {}
        : {
            recoveryToken: recoveryToken.value,
            recoveryTokenExpiresAt: new Date(recoveryToken.expiresAt).toISOString(),
          }),
    };
    await writeJournal(journal);
    logger.info({ runId, clientId, sink, ownAccount }, 'rotation journal written; rotating');
    crashPoints.reach('rotate.after-journal');

    const stored = await this.rotateAndStore(journal, 'rotate', signal);
    return { rotations: 1, recoveredInterrupted, ownAccount, ...stored };
  }

  /**
   * Finishes a rotation a crash interrupted, from its journal: if the sink's secret works, there
   * is nothing to repair; if the platform refuses it (the rotation happened and its new secret
   * was lost) or the sink is missing, rotate again and store the new secret, authenticated with
   * the recovery token when the account is paw's own (its secret is the dead one). Ends with
   * {@link complete}. Returns whether it rotated.
   */
  async finishInterrupted(
    journal: RotationJournal,
    signal?: AbortSignal,
  ): Promise<{ rotated: boolean }> {
    const { platform, crashPoints, logger } = this.dependencies;
    // At start-up as in a run: a sink others could write in is neither trusted nor rewritten.
    await assertPrivateSinkFolder(journal.sink);
    const state = await checkSink(platform, journal.sink, journal.clientId, signal);
    const context = { runId: journal.runId, clientId: journal.clientId, sink: journal.sink };
    if (state === 'works') {
      logger.info(
        { ...context, phase: journal.phase },
        'interrupted rotation found; the sink authenticates: nothing to repair',
      );
      await this.complete(journal);
      return { rotated: false };
    }
    const expiresAt = journal.recoveryTokenExpiresAt;
    if (journal.recoveryToken !== undefined && expiresAt !== undefined) {
      if (Date.parse(expiresAt) <= Date.now()) {
        throw new UsageError(
          `the rotation of paw's own account ${journal.clientId} was interrupted and its new ` +
            `secret lost, and the recovery token expired at ${expiresAt}: paw cannot ` +
            'authenticate any more. Rotate the secret with other administrator credentials ' +
            `(paw accounts rotate ${journal.clientId} --out ${journal.sink}), then delete ` +
            `the journal beside the sink`,
        );
      }
    }
    logger.warn(
      { ...context, phase: journal.phase, sinkState: state },
      'interrupted rotation found and the sink does not authenticate: rotating again',
    );
    const restarted: RotationJournal = {
      ...journal,
      phase: 'rotating',
      updatedAt: new Date().toISOString(),
    };
    await writeJournal(restarted);
    crashPoints.reach('rotate.recovery-before-platform-call');
    await this.rotateAndStore(restarted, 'rotate.recovery', signal);
    await this.complete(restarted);
    return { rotated: true };
  }

  /**
   * Ends a rotation whose new secret is stored and proven: deletes the journal, forgets the
   * sink in Redis, revokes the recovery token (best effort: it expires anyway).
   */
  async complete(journal: Pick<RotationJournal, 'sink' | 'recoveryToken'>): Promise<void> {
    await deleteJournal(journal.sink);
    this.dependencies.crashPoints.reach('rotate.after-journal-delete');
    await this.dependencies.pendingSinks.remove(journal.sink);
    if (journal.recoveryToken !== undefined) {
      await this.dependencies.platform.accessTokens
        .revoke(journal.recoveryToken)
        .catch(() => undefined);
    }
  }

  /** Steps 5 to 7: rotate, store, switch (own account), journal, prove. */
  private async rotateAndStore(
    journal: RotationJournal,
    stage: 'rotate' | 'rotate.recovery',
    signal: AbortSignal | undefined,
  ): Promise<Pick<RotationResult, 'refusedAccessTokenUri' | 'suspendedTprPolicyIds'>> {
    const { platform, crashPoints, logger } = this.dependencies;
    const { runId, clientId, sink } = journal;
    const accounts =
      journal.recoveryToken === undefined
        ? platform.graphql.serviceAccounts
        : platform.graphql.serviceAccountsWith(journal.recoveryToken);
    let issued;
    try {
      issued = await accounts.rotateSecret(clientId, signal);
    } catch (error) {
      if (stage === 'rotate' && refusedOutright(error)) {
        // Nothing was rotated: the sink's secret still works, and there is nothing to recover.
        await this.complete(journal);
      }
      throw error;
    }
    crashPoints.reach(`${stage}.after-platform-call`);
    if (issued.clientId !== clientId) {
      throw new ProtocolError({
        operation: 'rotateServiceAccountSecret',
        code: 'CLIENT_ID_MISMATCH',
        message: `asked to rotate ${clientId}, the platform answered for ${issued.clientId}`,
        mayHaveTakenEffect: true,
      });
    }
    const suspended = issued.suspendedTprPolicyIds ?? [];
    if (suspended.length > 0) {
      logger.warn(
        { runId, clientId, suspendedTprPolicyIds: suspended },
        'the rotation suspended quorum-authorization policies: review them in the platform',
      );
    }
    if (issued.refusedAccessTokenUri !== undefined) {
      // Written as is, the next user of the sink would post the secret there, or nowhere.
      logger.warn(
        { runId, clientId, sink, answeredTokenUri: issued.refusedAccessTokenUri },
        "the platform's rotation answer named another token address; the sink keeps the platform's own",
      );
    }
    try {
      await writeCredentialsFile(sink, issued, { checkFolder: assertPrivateWrittenFolder });
      crashPoints.reach(`${stage}.after-sink-write`);
      if (journal.recoveryToken !== undefined) {
        // paw's own account: from now on paw's token requests use the new secret.
        await platform.credentials.reload();
      }
      logger.info({ runId, clientId, sink }, 'secret rotated and written to the sink');
      await writeJournal({
        ...journal,
        phase: 'sink-written',
        updatedAt: new Date().toISOString(),
      });
      crashPoints.reach(`${stage}.after-journal-update`);
      await this.verify(journal, signal);
      crashPoints.reach(`${stage}.after-verify`);
    } catch (error) {
      // Whatever went wrong (even a full disk, which is no fault of the definition), the old
      // secret is dead: never give up here for good. The journal stays, and the retry repairs.
      throw new RotationIncompleteError(clientId, sink, error);
    }
    logger.info({ runId, clientId, sink }, 'the new secret authenticates');
    return {
      refusedAccessTokenUri: issued.refusedAccessTokenUri,
      suspendedTprPolicyIds: suspended.length > 0 ? suspended : undefined,
    };
  }

  /** Proves the sink's secret works, allowing the platform a moment to accept a new secret. */
  private async verify(journal: RotationJournal, signal: AbortSignal | undefined): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const state = await checkSink(
        this.dependencies.platform,
        journal.sink,
        journal.clientId,
        signal,
      );
      if (state === 'works') return;
      if (attempt >= VERIFY_ATTEMPTS) {
        // Retryable: the journal stays, and the retry finds a sink that does not authenticate
        // and rotates again.
        throw new Error(
          `the platform refuses the new secret of ${journal.clientId} stored in ${journal.sink}; the rotation will be repeated`,
        );
      }
      await sleep(500 * 2 ** (attempt - 1), undefined, { signal });
    }
  }

  /** An access token for paw's own account that lasts long enough to recover with. */
  private async recoveryToken(signal: AbortSignal | undefined): Promise<IssuedAccessToken> {
    const { platform, settings } = this.dependencies;
    let token: IssuedAccessToken;
    try {
      token = await platform.accessTokens.issue(platform.credentials.current(), signal);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      // Another paw process may have rotated the secret and written the file: read it again.
      const reloaded = await platform.credentials.reload();
      if (reloaded === undefined) throw error;
      token = await platform.accessTokens.issue(reloaded, signal);
    }
    const minimum = settings.rotation.minRecoveryTokenSeconds;
    const lasts = Math.floor((token.expiresAt - Date.now()) / 1000);
    if (lasts < minimum) {
      await platform.accessTokens.revoke(token.value, signal).catch(() => undefined);
      throw new UsageError(
        `the platform's access tokens last ${lasts} s, less than the ${minimum} s a rotation of ` +
          "paw's own secret needs to recover from a crash (rotation.minRecoveryTokenSeconds): " +
          'raise the token lifetime in the platform or lower the setting',
      );
    }
    return token;
  }
}

/** The platform answered the rotation with a 4xx (permission, not found, invalid): nothing changed. */
function refusedOutright(error: unknown): boolean {
  return (
    isPlatformError(error) &&
    !isRetryable(error) &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500
  );
}
