import type { z } from 'zod';
import { malformedResponse } from './error-factory.js';
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
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    throw malformedResponse({
      operation,
      status: response.status,
      problem: 'the body is not JSON',
      notJson: true,
      requestId: response.requestId,
    });
  }
  const parsed = schema.safeParse(json);
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
