import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { Settings } from '../config/settings-schema.js';

/**
 * The largest body the ops server reads: what it takes is a retry's reason or a bull-board
 * action, a few hundred bytes; fastify's default (1 MiB) is room for no purpose.
 */
const BODY_LIMIT_BYTES = 64 * 1024;

/** A client's headers arrive within this (or the request timeout, if shorter). */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * A new connection's first request arrives within this, or the connection is closed
 * (connection-budget.ts): a probe, a scrape or a browser speaks at once; a socket held open in
 * silence only takes a place.
 */
export const FIRST_REQUEST_MS = 5_000;

/**
 * A connection admitted on probation (beyond its address's share: connection-budget.ts) sends
 * its request within this: a probe or a scrape does at once, and a client's surplus sockets are
 * closed this soon instead of re-opened in a busy loop.
 */
export const PROBATION_FIRST_REQUEST_MS = 1_000;

/** Connections on probation at once, as a multiple of `http.maxConnections`. */
export const PROBATION_PER_CONNECTION = 4;

/** How often Node looks for requests past their time: its default (30 s) would double ours. */
const CHECK_INTERVAL_MS = 1_000;

/**
 * What bounds a client of the ops server, from what fastify and Node's HTTP server offer, so
 * that a slow or silent client cannot hold a connection: the whole request (headers and body)
 * within `http.requestTimeoutMs` (Node's `requestTimeout`), its headers within 10 s
 * (`headersTimeout`), no socket idle longer than the request timeout (`connectionTimeout`), and
 * bodies of 64 KiB at most (`bodyLimit`, 413 beyond). Idle keep-alive connections keep fastify's
 * 72 s (`keepAliveTimeout`), longer than the proxies and load balancers in front usually keep
 * theirs, so none sends a request on a connection paw has just closed. Connections are capped by
 * the server's ConnectionBudget (connection-budget.ts), not by Node's `maxConnections`.
 */
export function opsServerLimits(http: Settings['http']): FastifyHttpOptions<Server> {
  const requestTimeout = http.requestTimeoutMs;
  return {
    requestTimeout,
    connectionTimeout: requestTimeout,
    bodyLimit: BODY_LIMIT_BYTES,
    http: {
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeout),
      connectionsCheckingInterval: Math.min(CHECK_INTERVAL_MS, requestTimeout),
    },
  };
}
