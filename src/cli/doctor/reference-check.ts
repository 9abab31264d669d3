import { stringify } from 'yaml';
import { writePrivateFileAtomically } from '../../shared/write-private-file.js';
import type { RestOperationId } from '../../platform/defaults/default-routes.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';
import { isDefaultRoute, matchRoutes, type RouteMatch } from './route-matching.js';

/** The routes the platform's reference names where paw's route table says otherwise. */
export interface RouteDifferences {
  readonly differing: readonly RouteMatch[];
  /** The `platform.routes` block that matches the reference, for `--write-routes`. */
  readonly routesBlock: Record<string, { method: string; path: string }>;
}

/**
 * The platform's own REST reference, found from `/api/rest/docs` or the usual document names,
 * diffed against the route table in effect. Never blocks: the route checks say whether the
 * routes paw uses answer; this says where the reference puts them.
 */
export async function referenceCheck(
  context: DoctorContext,
): Promise<{ readonly result: CheckResult; readonly differences?: RouteDifferences }> {
  const { reference, tried } = await context.client.rest.reference(context.signal);
  if (reference === undefined) {
    const result = check(
      'rest.reference',
      "the platform's REST reference",
      'warn',
      `no OpenAPI document found (tried ${tried.join(', ')})`,
      {
        blocks: false,
        fix: 'ask the platform for its REST reference, or rely on the route checks above',
      },
    );
    context.report(result);
    return { result };
  }
  const routes = context.client.rest.client.routes;
  const matches = matchRoutes(reference.operations, context.settings.platform.restBasePath);
  const differing = matches.filter(
    (match) =>
      match.found !== undefined &&
      (match.found.method !== routes.method(match.operationId) ||
        match.found.path !== routes.path(match.operationId)),
  );
  const unmatched = matches.filter((match) => match.found === undefined);
  const routesBlock: RouteDifferences['routesBlock'] = {};
  for (const match of matches) {
    if (match.found !== undefined && !isDefaultRoute(match)) {
      routesBlock[match.operationId] = { method: match.found.method, path: match.found.path };
    }
  }
  const describe = (match: RouteMatch): string =>
    `${match.operationId}: ${routes.method(match.operationId)} ${routes.path(match.operationId)} → ` +
    `${match.found?.method ?? '?'} ${match.found?.path ?? '?'}`;
  const parts = [
    `found via the ${reference.foundVia} at ${new URL(reference.url).pathname}, ${reference.operations.length} operations`,
    differing.length === 0
      ? 'every route paw uses is where paw looks'
      : `${differing.length} routes are elsewhere (${differing.map(describe).join('; ')})`,
    unmatched.length === 0
      ? undefined
      : `not recognised: ${unmatched
          .map((match) =>
            match.ambiguous.length === 0
              ? match.operationId
              : `${match.operationId} (several fit: ${match.ambiguous.join(', ')})`,
          )
          .join(', ')}`,
  ].filter((part) => part !== undefined);
  const result = check(
    'rest.reference',
    "the platform's REST reference",
    differing.length === 0 && unmatched.length === 0 ? 'ok' : 'warn',
    parts.join('; '),
    {
      blocks: false,
      fix:
        differing.length === 0
          ? undefined
          : 'paw doctor --write-routes routes.yaml writes the platform.routes block that matches it; merge it into config/paw.yaml',
    },
  );
  context.report(result);
  return { result, differences: { differing, routesBlock } };
}

/** Writes the `platform.routes` block as a settings file (mode 0600 is harmless, atomic). */
export async function writeRoutesFile(
  file: string,
  routesBlock: RouteDifferences['routesBlock'],
): Promise<void> {
  const sorted = Object.fromEntries(
    Object.entries(routesBlock).sort(([a], [b]) => a.localeCompare(b)),
  ) as Partial<Record<RestOperationId, { method: string; path: string }>>;
  const text =
    '# The REST routes the platform reference names, written by `paw doctor --write-routes`.\n' +
    '# Merge this block into config/paw.yaml (or use this file as it is).\n' +
    stringify({ platform: { routes: sorted } });
  await writePrivateFileAtomically(file, text);
}
