import type { z } from 'zod';
import { answerCostProblem } from './answer-limits.js';
import { malformedResponse, oversizedResponse } from './error-factory.js';
import type { ProtocolError } from './platform-errors.js';
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
    throw malformedAnswer(
      response,
      operation,
      `unexpected body (${[...new Set(fields)].slice(0, 5).join('; ')})`,
    );
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
    throw malformedAnswer(response, operation, 'the body is not JSON', true);
  }
}

/**
 * The error of a 2xx answer `operation` cannot use (see {@link malformedResponse}): `problem`
 * names what is wrong, never a value; `notJson` when the body was not even JSON.
 */
export function malformedAnswer(
  response: IncomingResponse,
  operation: string,
  problem: string,
  notJson = false,
): ProtocolError {
  return malformedResponse({
    operation,
    status: response.status,
    problem,
    notJson,
    requestId: response.requestId,
  });
}
