import type { z } from 'zod';
import { answerCostProblem } from './answer-limits.js';
import { malformedResponse, oversizedResponse } from './error-factory.js';
import type { IncomingResponse } from './http-transport.js';

/**
 * Parses a 2xx JSON body with a schema. Failures are ProtocolErrors naming the fields at fault,
 * never their values (a token response holds a token).
 */
export function parseJsonBody<S extends z.ZodType>(
  response: IncomingResponse,
  operation: string,
  schema: S,
): z.output<S> {
  const parsed = schema.safeParse(readAnswerJson(response, operation));
  if (!parsed.success) {
    const fields = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || '(body)'}: ${issue.code}`,
    );
    throw malformedResponse({
      operation,
      status: response.status,
      problem: `unexpected body (${[...new Set(fields)].slice(0, 5).join('; ')})`,
      notJson: false,
      requestId: response.requestId,
    });
  }
  return parsed.data;
}

/**
 * The JSON of a 2xx answer. One too costly to parse (see answerCostProblem) is refused before
 * JSON.parse allocates anything; one that is not JSON is a malformed answer (retried: likely a
 * cut-off body or a broken proxy).
 */
export function readAnswerJson(response: IncomingResponse, operation: string): unknown {
  const problem = answerCostProblem(response.body);
  if (problem !== undefined) {
    throw oversizedResponse({
      operation,
      status: response.status,
      problem,
      requestId: response.requestId,
    });
  }
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    throw malformedResponse({
      operation,
      status: response.status,
      problem: 'the body is not JSON',
      notJson: true,
      requestId: response.requestId,
    });
  }
}
