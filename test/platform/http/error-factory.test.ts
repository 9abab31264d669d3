import { describe, expect, it } from 'vitest';
import {
  errorFromResponse,
  errorFromTransport,
  errorInAnswer,
  malformedResponse,
} from '../../../src/platform/http/error-factory.js';
import { isRetryable, isSafeToRepeat } from '../../../src/platform/http/is-retryable.js';
import {
  AuthenticationError,
  ConflictError,
  DocumentRefusedError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  PlatformConnectionError,
  PlatformTimeoutError,
  RateLimitedError,
  UnavailableError,
} from '../../../src/platform/http/platform-errors.js';

const operation = 'getWorkload';

describe('errorFromResponse', () => {
  it('reads the REST envelope error and classifies by status', () => {
    const error = errorFromResponse({
      operation,
      status: 404,
      body: JSON.stringify({
        data: null,
        metadata: null,
        error: { code: 'NOT_FOUND', message: 'workload w-1 not found', extra: 1 },
      }),
      requestId: 'req-7',
    });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({
      kind: 'not_found',
      status: 404,
      code: 'NOT_FOUND',
      operation,
      requestId: 'req-7',
      platformMessage: 'workload w-1 not found',
      mayHaveTakenEffect: false,
    });
    expect(error.message).toBe(
      'getWorkload: workload w-1 not found (HTTP 404, code NOT_FOUND, request id req-7)',
    );
  });

  it.each([
    [400, 'INVALID_ARGUMENT', InvalidRequestError],
    [401, '16', AuthenticationError],
    [403, 'PERMISSION_DENIED', PermissionError],
    [409, 'ALREADY_EXISTS', ConflictError],
    [429, undefined, RateLimitedError],
    [500, 'INTERNAL', UnavailableError],
    [502, '14', UnavailableError],
    [503, 'CLUSTER_UNAVAILABLE', UnavailableError],
    [504, undefined, PlatformTimeoutError],
  ])('HTTP %i becomes %s', (status, code, type) => {
    const body =
      code === undefined ? '' : JSON.stringify({ code: Number(code) || code, message: 'm' });
    const error = errorFromResponse({ operation, status, body });
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
  });

  it('reads the gateway, cluster, OAuth and GraphQL error shapes', () => {
    const gateway = errorFromResponse({
      operation,
      status: 401,
      body: '{"code":16,"message":"JWT validation failed: TIME_CONSTRAINT_FAILURE","details":[]}',
    });
    expect(gateway.platformMessage).toContain('TIME_CONSTRAINT_FAILURE');
    const cluster = errorFromResponse({
      operation,
      status: 403,
      body: '{"errorType":"permission_error","message":"session limit reached","cause":null}',
    });
    expect(cluster).toMatchObject({
      code: 'permission_error',
      platformMessage: 'session limit reached',
    });
    const oauth = errorFromResponse({
      operation,
      status: 400,
      body: '{"error":"invalid_grant","error_description":"code already used"}',
    });
    expect(oauth).toMatchObject({ code: 'invalid_grant', platformMessage: 'code already used' });
    const graphql = errorFromResponse({
      operation,
      status: 400,
      body: '{"code":400,"message":"[QueryAnalysisError] bad"}',
    });
    expect(graphql).toBeInstanceOf(InvalidRequestError);
  });

  it("reads a refused GraphQL document in either validator's words, keeping only its violations", () => {
    const platform = errorFromResponse({
      operation: 'slaDomains',
      status: 400,
      body: JSON.stringify({
        code: 400,
        uri: '/api/graphql',
        traceSpan: { traceId: 'trace-1', operation: '/api/graphql', spanId: 's' },
        message:
          '[QueryAnalysisError] Encountered Client error (400) executing query with operations: [] ' +
          `and variables {"input":{"note":"private"}}. Error: Query does not pass validation. Violations:\n\n` +
          "Cannot query field 'x' on type 'SlaDomain'. (line 6, column 7):\n      x\n      ^\n\n" +
          "Unknown argument 'sortBy' on field 'Query.slaDomains'. (line 2, column 15):\n  slaDomains(sortBy: NAME)\n              ^",
      }),
    });
    expect(platform).toBeInstanceOf(DocumentRefusedError);
    expect(platform).toMatchObject({
      kind: 'invalid',
      code: 'DOCUMENT_REFUSED',
      requestId: 'trace-1',
      refused: ['SlaDomain.x', 'Query.slaDomains(sortBy)'],
      violations: [
        "Cannot query field 'x' on type 'SlaDomain'. (line 6, column 7)",
        "Unknown argument 'sortBy' on field 'Query.slaDomains'. (line 2, column 15)",
      ],
    });
    expect(platform.message).not.toContain('private');
    // graphql-js's words, several joined on one line, without locations.
    const graphqlJs = errorFromResponse({
      operation,
      status: 400,
      body: JSON.stringify({
        code: 400,
        message:
          '[QueryAnalysisError] Cannot query field "y" on type "Cluster".; Unknown type "Nope".',
      }),
    });
    expect(graphqlJs).toMatchObject({
      refused: ['Cluster.y', 'Nope'],
      violations: ['Cannot query field "y" on type "Cluster".', 'Unknown type "Nope".'],
    });
    // A refusal that is not about the schema still says what the platform said.
    const other = errorFromResponse({
      operation,
      status: 400,
      body: '{"code":400,"message":"[QueryAnalysisError] Introspection is not allowed."}',
    });
    expect(other).toMatchObject({ refused: [], violations: ['Introspection is not allowed.'] });
  });

  it('finds the failure a 2xx GraphQL body carries instead of a result', () => {
    const refused = errorInAnswer({
      operation,
      json: {
        code: 400,
        uri: '/api/graphql',
        message: "[QueryAnalysisError] Cannot query field 'a' on type 'B'.",
      },
    });
    expect(refused).toBeInstanceOf(DocumentRefusedError);
    expect(refused).toMatchObject({ status: 400, mayHaveTakenEffect: false });
    expect(errorInAnswer({ operation, json: { code: 403, message: 'denied' } })).toBeInstanceOf(
      PermissionError,
    );
    for (const json of [
      { data: { a: 1 } },
      { data: null, errors: [] },
      { code: 200, message: 'ok' },
      [],
    ]) {
      expect(errorInAnswer({ operation, json })).toBeUndefined();
    }
  });

  it('survives a body that is not JSON and shortens a long one', () => {
    const error = errorFromResponse({ operation, status: 502, body: `<html>${'x'.repeat(5000)}` });
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.platformMessage.length).toBeLessThan(400);
  });

  it('says when a failure provably did nothing', () => {
    expect(errorFromResponse({ operation, status: 429, body: '' }).mayHaveTakenEffect).toBe(false);
    expect(errorFromResponse({ operation, status: 503, body: '' }).mayHaveTakenEffect).toBe(false);
    expect(errorFromResponse({ operation, status: 500, body: '' }).mayHaveTakenEffect).toBe(true);
    expect(errorFromResponse({ operation, status: 504, body: '' }).mayHaveTakenEffect).toBe(true);
  });
});

describe('errorFromTransport', () => {
  it('maps undici and system error codes', () => {
    const refused = errorFromTransport({
      operation,
      error: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
    });
    expect(refused).toBeInstanceOf(PlatformConnectionError);
    expect(refused.mayHaveTakenEffect).toBe(false);
    const headers = errorFromTransport({
      operation,
      error: Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
    });
    expect(headers).toBeInstanceOf(PlatformTimeoutError);
    expect(headers).toMatchObject({ code: 'TIMEOUT_HEADERS', mayHaveTakenEffect: true });
    const reset = errorFromTransport({
      operation,
      error: new Error('wrapped', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    });
    expect(reset).toMatchObject({
      kind: 'connection',
      code: 'ECONNRESET',
      mayHaveTakenEffect: true,
    });
  });
});

describe('isRetryable and isSafeToRepeat', () => {
  const of = (status: number) => errorFromResponse({ operation, status, body: '' });

  it('calls transient failures retryable and permanent ones not', () => {
    expect([429, 500, 502, 503, 504].map((status) => isRetryable(of(status)))).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect([400, 401, 403, 404, 409].map((status) => isRetryable(of(status)))).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(isRetryable(new Error('not a platform error'))).toBe(false);
    const notJson = malformedResponse({ operation, status: 200, problem: 'p', notJson: true });
    const wrongShape = malformedResponse({ operation, status: 200, problem: 'p', notJson: false });
    expect([isRetryable(notJson), isRetryable(wrongShape)]).toEqual([true, false]);
  });

  it('repeats a non-idempotent request only when it provably did nothing', () => {
    expect(isSafeToRepeat(of(429), false)).toBe(true);
    expect(isSafeToRepeat(of(503), false)).toBe(true);
    expect(isSafeToRepeat(of(500), false)).toBe(false);
    expect(isSafeToRepeat(of(500), true)).toBe(true);
    const hang = errorFromTransport({
      operation,
      error: Object.assign(new Error('t'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
    });
    expect([isSafeToRepeat(hang, false), isSafeToRepeat(hang, true)]).toEqual([false, true]);
  });
});
