import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../shared/logger.js';
import {
  EXPIRED_TOKEN_BODY,
  INVALID_CREDENTIALS_BODY,
  injectedError,
} from './gateway-responses.js';
import type { ZodApp } from './route-config.js';
import type { SimulatorState } from './simulator-state.js';

export interface TrafficHooksOptions {
  /** Checks a request to a route with `bearerAuth`; answers it and returns false on failure. */
  readonly authenticate: (request: FastifyRequest, reply: FastifyReply) => boolean;
  /** Latency timers in flight, cleared when the simulator stops. */
  readonly timers: Set<NodeJS.Timeout>;
  /** At debug level, one line per answered operation (path only: no query, no body). */
  readonly logger: Logger;
}

/**
 * What stands in front of every simulated operation, in the order a request meets it: counting,
 * the token bucket (bare 429), injected faults (latency, then 429, reset, hang, error or a
 * mangled body), then authentication. Routes without an operationId (`/_sim`, the docs) pass
 * untouched. Callback-style hooks: this runs on every request of a benchmark.
 */
export function installTrafficHooks(
  app: ZodApp,
  state: SimulatorState,
  options: TrafficHooksOptions,
): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('accessToken', null);
  app.decorateRequest('malformed', false);
  app.decorateRequest('latencyMs', 0);

  /** Runs `then` once `ms` have passed (counted in the stats meanwhile). */
  const delay = (ms: number, then: () => void): void => {
    state.stats.delayed++;
    const timer = setTimeout(() => {
      options.timers.delete(timer);
      state.stats.delayed--;
      then();
    }, ms);
    options.timers.add(timer);
  };

  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config;
    const operationId = config.operationId;
    if (operationId === undefined) {
      done();
      return;
    }
    state.stats.request(operationId);
    if (config.rateLimited === true && !state.rateLimiter.tryTake()) {
      state.stats.rateLimited++;
      void reply.code(429).send();
      return;
    }
    const fault = state.faults.decide(operationId);
    const proceed = (): void => {
      if (fault?.kind !== undefined) {
        state.stats.fault(fault.kind);
        switch (fault.kind) {
          case 'tooManyRequests':
            void reply.code(429).send();
            return;
          case 'reset':
            reply.hijack();
            request.raw.socket.destroy();
            return;
          case 'hang':
            // Never answered; the connection is destroyed when the simulator stops.
            reply.hijack();
            return;
          case 'error': {
            const answer = injectedError(config.surface ?? 'gateway', fault.status, request.url);
            void reply.code(answer.status).send(answer.body);
            return;
          }
          case 'malformed':
            request.malformed = true;
            break;
        }
      }
      if (config.bearerAuth === true && !options.authenticate(request, reply)) return;
      done();
    };
    if (fault !== undefined && fault.latencyMs > 0 && fault.kind !== undefined) {
      delay(fault.latencyMs, proceed);
    } else {
      // Latency alone is spent once the request is whole (preHandler, below): the platform acts
      // on a request it received, whether or not its client is still there to read the answer.
      request.latencyMs = fault?.latencyMs ?? 0;
      proceed();
    }
  });

  app.addHook('preHandler', (request, _reply, done) => {
    if (request.latencyMs <= 0) {
      done();
      return;
    }
    delay(request.latencyMs, done);
  });

  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.malformed && typeof payload === 'string' && payload.length > 0) {
      // Cut in the middle of the JSON, and make sure what is left cannot parse.
      done(null, `${payload.slice(0, Math.max(1, Math.floor(payload.length / 2)))}\u0000`);
      return;
    }
    done(null, payload);
  });

  const debug = options.logger.isLevelEnabled('debug');
  app.addHook('onResponse', (request, reply, done) => {
    const operationId = request.routeOptions.config.operationId;
    if (operationId !== undefined) {
      state.stats.response(operationId, reply.statusCode);
      if (debug) {
        options.logger.debug(
          {
            operationId,
            method: request.method,
            path: request.url.split('?')[0],
            status: reply.statusCode,
            ms: Math.round(reply.elapsedTime),
          },
          'request',
        );
      }
    }
    done();
  });
}

/** The platform gateway's bearer check: 401 with the gateway's bodies on failure. */
export function authenticatePlatformRequest(state: SimulatorState) {
  return (request: FastifyRequest, reply: FastifyReply): boolean => {
    const bearer = bearerToken(request.headers.authorization);
    const check = bearer === undefined ? undefined : state.tokens.check(bearer);
    if (check?.status === 'valid' && state.accounts.exists(check.token.principal)) {
      request.principal = check.token.principal;
      request.accessToken = check.token;
      return true;
    }
    void reply
      .code(401)
      .send(check?.status === 'expired' ? EXPIRED_TOKEN_BODY : INVALID_CREDENTIALS_BODY);
    return false;
  };
}

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ \t]+([^ \t]+)[ \t]*$/i.exec(header);
  return match?.[1];
}
