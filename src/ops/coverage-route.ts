import type { FastifyInstance } from 'fastify';
import type { JobDefinition } from '../definitions/job-definition.js';
import {
  coverageReport,
  snapshotDefinitions,
  type CoverageReport,
} from '../job-kinds/snapshot/coverage.js';
import type { CoverageIndex } from '../outcomes/coverage-index.js';
import type { PlatformClient } from '../platform/platform-client.js';
import { parseDuration } from '../shared/duration.js';

/**
 * How long a computed report is served again: each one resolves every definition's targets on
 * the platform (its list calls, through the process's request gate), and a dashboard or a few
 * scripts polling must not multiply them.
 */
const REPORT_REUSE_MS = 30_000;

/**
 * `GET /api/coverage[?definition=<id>][&stale=<duration>]`: what `paw coverage --json` prints,
 * from the same computation (src/job-kinds/snapshot/coverage.ts), behind the ops server's
 * authentication like every route. 404 in a process without definitions (a worker), 503 in one
 * without a platform client.
 */
export function registerCoverageRoute(
  app: FastifyInstance,
  context: {
    readonly coverage: CoverageIndex;
    readonly platform: PlatformClient | undefined;
    /** The definitions loaded now; undefined in a process that loads none (a worker). */
    readonly definitions: () => readonly JobDefinition[] | undefined;
  },
): void {
  const reports = new Map<string, { at: number; report: Promise<CoverageReport> }>();
  app.get<{ Querystring: { definition?: string; stale?: string } }>(
    '/api/coverage',
    async (request, reply) => {
      const loaded = context.definitions();
      if (loaded === undefined) {
        return reply.code(404).send({ error: 'this process loaded no job definitions (a worker)' });
      }
      const { platform } = context;
      if (platform === undefined) {
        return reply.code(503).send({ error: 'this process has no platform client' });
      }
      const { definition, stale } = request.query;
      const staleAfterMs = stale === undefined ? undefined : parseDuration(stale);
      if (stale !== undefined && staleAfterMs === undefined) {
        return reply
          .code(400)
          .send({ error: `stale must be a duration such as 36h, not ${stale}` });
      }
      let definitions = snapshotDefinitions(loaded);
      if (definition !== undefined) {
        definitions = definitions.filter((found) => found.id === definition);
        if (definitions.length === 0) {
          return reply.code(404).send({ error: `no snapshot definition has id ${definition}` });
        }
      }
      const key = `${definition ?? ''} ${staleAfterMs ?? ''}`;
      const now = Date.now();
      let entry = reports.get(key);
      if (entry === undefined || now - entry.at > REPORT_REUSE_MS) {
        const report = coverageReport(definitions, platform, context.coverage, {
          now: new Date(now),
          staleAfterMs,
        });
        entry = { at: now, report };
        reports.set(key, entry);
        // A failed computation is not served again.
        void report.catch(() => reports.delete(key));
      }
      return entry.report;
    },
  );
}
