import { PermanentError } from '../../shared/permanent-error.js';

/**
 * A run cannot go ahead because of what its definition says (its retention SLA Domain does not
 * exist, or its name is ambiguous): the run fails at once with this code and message, and is not
 * retried. The message names the definition and the fix.
 */
export class RunConfigurationError extends PermanentError {
  override readonly name = 'RunConfigurationError';
}
