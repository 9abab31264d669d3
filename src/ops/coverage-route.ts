import type { FastifyInstance, FastifyReply } from 'fastify';
import type { JobDefinition } from '../definitions/job-definition.js';
import {
  coverageReport,
  snapshotDefinitions,
  withStaleAfter,
  type CoverageReport,
} from '../job-kinds/snapshot/coverage/coverage-report.js';
import type { CoverageIndex } from '../outcomes/coverage-index.js';
import type { OutcomeQueries } from '../outcomes/outcome-queries.js';
import type { ItemRow } from '../outcomes/outcome-records.js';
import {
  COVERAGE_ROWS,
  COVERAGE_SORTS,
  MAX_COVERAGE_ROWS,
  loadCoverageGrids,
  type CoverageSort,
} from './dashboard/coverage-grid.js';
import { renderCoveragePage } from './dashboard/coverage-page.js';
import type { PageContext } from './dashboard/dashboard-page.js';
import type { RunItemsReader } from '../outcomes/run-items-reader.js';
import type { PlatformClient } from '../platform/platform-client.js';
import { parseDuration } from '../shared/duration.js';

/**
 * How long a computed report is served again: each one resolves every definition's targets on
 * the platform (its list calls, through the process's request gate), and a dashboard or a few
 * scripts polling must not multiply them.
 */
const REPORT_REUSE_MS = 30_000;

/** Items `/api/items` answers unless asked (`?limit=`), and at most. */
const ITEMS_LIMIT = 100;
const MAX_ITEMS = 1000;

/**
 * `GET /api/coverage[?definition=<id>][&stale=<duration>]`: what `paw coverage --json` prints,
 * from the same computation (src/job-kinds/snapshot/coverage/coverage-report.ts), behind the ops server's
 * authentication like every route. 404 in a process without definitions (a worker), 503 in one
 * without a platform client.
 *
 * `GET /coverage[?definition=<id>][&sort=state|name|streak][&rows=N][&offset=N]`: the same
 * report as the dashboard's coverage view, each workload with its items in the definition's
 * last 14 runs (src/ops/dashboard/coverage-grid.ts).
 *
 * `GET /api/items?target=<workload id or name>[&definition=<id>][&limit=N]`: a workload's
 * items, newest run first (what `paw outcomes --target` lists): where the view's rows link.
 */
export function registerCoverageRoute(
  app: FastifyInstance,
  context: {
    readonly coverage: CoverageIndex;
    readonly platform: PlatformClient | undefined;
    /** The definitions loaded now; undefined in a process that loads none (a worker). */
    readonly definitions: () => readonly JobDefinition[] | undefined;
    readonly queries: OutcomeQueries;
    readonly items: RunItemsReader;
    readonly page: PageContext;
    /** Sends a page with the dashboard's headers (its Content-Security-Policy). */
    readonly sendHtml: (reply: FastifyReply, body: string) => FastifyReply;
  },
): void {
  const reports = new Map<string, { at: number; report: Promise<CoverageReport> }>();

  /** The report asked for, or the answer that refuses it. */
  function report(query: {
    definition?: string | undefined;
    stale?: string | undefined;
  }): Promise<CoverageReport> | { code: number; error: string } {
    const loaded = context.definitions();
    if (loaded === undefined) {
      return { code: 404, error: 'this process loaded no job definitions (a worker)' };
    }
    const { platform } = context;
    if (platform === undefined) return { code: 503, error: 'this process has no platform client' };
    const { definition, stale } = query;
    const staleAfterMs = stale === undefined ? undefined : parseDuration(stale);
    if (stale !== undefined && staleAfterMs === undefined) {
      return { code: 400, error: `stale must be a duration such as 36h, not ${stale}` };
    }
    let definitions = snapshotDefinitions(loaded);
    if (definition !== undefined) {
      definitions = definitions.filter((found) => found.id === definition);
      if (definitions.length === 0) {
        return { code: 404, error: `no snapshot definition has id ${definition}` };
      }
    }
    // One report per definition asked (or all), whatever `stale` says: it is judged again
    // from that report (withStaleAfter), so no input makes another computation or another entry.
    const key = definition ?? '';
    const now = Date.now();
    let entry = reports.get(key);
    if (entry === undefined || now - entry.at > REPORT_REUSE_MS) {
      // Keys are loaded definitions' ids (any other is refused above): a reload may drop some.
      if (reports.size > loaded.length) reports.clear();
      const computed = coverageReport(definitions, platform, context.coverage, {
        now: new Date(now),
      });
      entry = { at: now, report: computed };
      reports.set(key, entry);
      // A failed computation is not served again.
      void computed.catch(() => reports.delete(key));
    }
    return staleAfterMs === undefined
      ? entry.report
      : entry.report.then((computed) => withStaleAfter(computed, staleAfterMs));
  }

  app.get<{ Querystring: { definition?: string; stale?: string } }>(
    '/api/coverage',
    async (request, reply) => {
      const answer = report(request.query);
      if ('code' in answer) return reply.code(answer.code).send({ error: answer.error });
      return answer;
    },
  );

  app.get<{
    Querystring: { definition?: string; sort?: string; rows?: string; offset?: string };
  }>('/coverage', async (request, reply) => {
    const {
      definition,
      sort = 'state',
      rows = String(COVERAGE_ROWS),
      offset = '0',
    } = request.query;
    const options = {
      sort: sort as CoverageSort,
      rows: Number(rows),
      offset: Number(offset),
    };
    if (!(COVERAGE_SORTS as readonly string[]).includes(sort)) {
      return reply
        .code(400)
        .send({ error: `sort must be one of ${COVERAGE_SORTS.join(', ')}, not ${sort}` });
    }
    if (!Number.isInteger(options.rows) || options.rows < 1 || options.rows > MAX_COVERAGE_ROWS) {
      return reply
        .code(400)
        .send({ error: `rows must be a whole number from 1 to ${MAX_COVERAGE_ROWS}` });
    }
    if (!Number.isInteger(options.offset) || options.offset < 0) {
      return reply.code(400).send({ error: 'offset must be a whole number from 0' });
    }
    const answer = report({ definition });
    if ('code' in answer) return reply.code(answer.code).send({ error: answer.error });
    const computed = await answer;
    const grids = await loadCoverageGrids(computed, context.queries, context.items, options);
    return context.sendHtml(
      reply,
      renderCoveragePage(grids, options, computed.generatedAt, context.page),
    );
  });

  app.get<{ Querystring: { target?: string; definition?: string; limit?: string } }>(
    '/api/items',
    async (request, reply) => {
      const { target, definition } = request.query;
      const limit = Number(request.query.limit ?? String(ITEMS_LIMIT));
      if (target === undefined || target === '') {
        return reply.code(400).send({ error: 'target (a workload id or name) is required' });
      }
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ITEMS) {
        return reply
          .code(400)
          .send({ error: `limit must be a whole number from 1 to ${MAX_ITEMS}` });
      }
      const found: ItemRow[] = [];
      for await (const item of context.queries.items({
        target,
        ...(definition === undefined ? {} : { definitionId: definition }),
      })) {
        found.push(item);
        if (found.length >= limit) break;
      }
      return found;
    },
  );
}
