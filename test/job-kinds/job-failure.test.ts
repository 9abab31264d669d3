import { UnrecoverableError } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UsageError } from '../../src/shared/usage-error.js';
import { failureFacts, isPermanentFailure, toJobError } from '../../src/job-kinds/job-failure.js';
import { retryError } from '../../src/job-kinds/settle-failure.js';
import { RetryLaterError } from '../../src/job-kinds/retry-later-error.js';
import { RunConfigurationError } from '../../src/job-kinds/snapshot/run-configuration-error.js';

/** The one classification of failures every job kind uses (src/job-kinds/job-failure.ts). */
describe('job failure classification', () => {
  it('treats a PermanentError as permanent, with its own code in the outcome record', () => {
    const error = new RunConfigurationError(
      'RETENTION_SLA_NOT_FOUND',
      'definition nightly: no SLA Domain is named Gold',
    );
    expect(isPermanentFailure(error)).toBe(true);
    expect(failureFacts(error)).toEqual({
      errorCode: 'RETENTION_SLA_NOT_FOUND',
      errorMessage: 'definition nightly: no SLA Domain is named Gold',
    });
    expect(toJobError(error)).toBeInstanceOf(UnrecoverableError);
  });

  it('retries what it does not know, and never what paw is told is wrong', () => {
    expect(isPermanentFailure(new Error('socket hang up'))).toBe(false);
    expect(isPermanentFailure(new UsageError('bad settings'))).toBe(true);
    expect(isPermanentFailure(z.string().safeParse(1).error)).toBe(true);
    expect(failureFacts(new UsageError('bad settings')).errorCode).toBe('CONFIGURATION');
    const plain = new Error('socket hang up');
    expect(retryError(plain)).toBe(plain);
    expect(retryError(plain)).not.toBeInstanceOf(RetryLaterError);
  });
});
