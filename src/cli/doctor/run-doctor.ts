import { stat } from 'node:fs/promises';
import { TOKEN_ENDPOINT_PATH } from '../../platform/auth/credentials-file.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';
import { clusterVersionsCheck } from './cluster-versions-check.js';
import { definitionsCheck } from './definitions-check.js';
import { graphqlChecks } from './graphql-checks.js';
import { referenceCheck, type RouteDifferences } from './reference-check.js';
import { restChecks } from './rest-checks.js';
import { schemaChecks } from './schema-checks.js';
import { writesCheck } from './writes-check.js';

/** What `paw doctor` found. */
export interface DoctorReport {
  /** paw's jobs can run as configured: no check that blocks them failed. */
  readonly ok: boolean;
  readonly api: string;
  readonly checks: readonly CheckResult[];
  readonly recommendations: readonly string[];
  readonly routes?: RouteDifferences | undefined;
}

/**
 * Every check, in the order a new user needs them: the credentials and a token first (nothing
 * else can be checked without), then each interface, the platform's reference, the clusters,
 * the job definitions, and the writes when asked for.
 */
export async function runDoctor(context: DoctorContext): Promise<DoctorReport> {
  const checks: CheckResult[] = [];
  const api = context.settings.platform.api;
  const push = (result: CheckResult): void => {
    context.report(result);
    checks.push(result);
  };

  push(await credentialsCheck(context));
  const token = await tokenCheck(context);
  push(token);
  if (token.status === 'fail') return finish(checks, api, []);

  const graphql = [...(await graphqlChecks(context)), ...(await schemaChecks(context))];
  const rest = await restChecks(context);
  const { result: reference, differences } = await referenceCheck(context);
  checks.push(...graphql, ...rest, reference);
  checks.push(...(await clusterVersionsCheck(context)));
  checks.push(...(await definitionsCheck(context)));
  if (context.options.allowWrites) checks.push(...(await writesCheck(context)));

  const recommendations: string[] = [];
  const restBroken = rest.some((result) => result.status === 'fail');
  const graphqlWorks = graphql.length > 0 && graphql.every((result) => result.status === 'ok');
  const graphqlBroken = graphql.some((result) => result.status === 'fail');
  if (api === 'rest' && restBroken && graphqlWorks) {
    recommendations.push(
      'The REST interface does not answer as paw expects, and GraphQL does: run paw with --api graphql ' +
        '(PAW_PLATFORM_API=graphql, or platform.api: graphql in config/paw.yaml).',
    );
  }
  if (api === 'graphql' && graphqlBroken && !restBroken) {
    recommendations.push(
      'GraphQL refuses what REST allows: run paw with --api rest (platform.api: rest).',
    );
  }
  return finish(checks, api, recommendations, differences);
}

function finish(
  checks: CheckResult[],
  api: string,
  recommendations: string[],
  routes?: RouteDifferences,
): DoctorReport {
  const ok = !checks.some((result) => result.status === 'fail' && result.blocks);
  return { ok, api, checks, recommendations, routes };
}

/** Where the credentials come from; a file readable by others is a warning. */
async function credentialsCheck(context: DoctorContext): Promise<CheckResult> {
  const { credentials } = context.client;
  const file = context.settings.platform.credentialsFile;
  const detail = `${credentials.description}, for ${credentials.baseUrl.origin}`;
  if (file === undefined) return check('credentials', 'credentials', 'ok', detail);
  const mode = (await stat(file)).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    return check(
      'credentials',
      'credentials',
      'warn',
      `${detail}; the file is readable by others (mode ${mode.toString(8)})`,
      {
        blocks: false,
        fix: `chmod 600 ${file}`,
      },
    );
  }
  return check('credentials', 'credentials', 'ok', `${detail} (mode ${mode.toString(8)})`);
}

/** A token from the token endpoint, and its lifetime; the session is ended right after. */
async function tokenCheck(context: DoctorContext): Promise<CheckResult> {
  const { client } = context;
  try {
    const issued = await client.accessTokens.issue(client.credentials.current(), context.signal);
    await client.accessTokens.revoke(issued.value).catch(() => undefined);
    const hours = issued.lifetimeSeconds / 3600;
    const lifetime = hours >= 1 ? `${hours.toFixed(1)} h` : `${issued.lifetimeSeconds} s`;
    return check(
      'token',
      `a token from ${TOKEN_ENDPOINT_PATH}`,
      issued.defaulted ? 'warn' : 'ok',
      issued.defaulted
        ? `issued, without expires_in: paw assumes ${lifetime} (platform.token.defaultLifetimeSeconds)`
        : `issued, valid for ${lifetime}; paw refreshes it ${context.settings.platform.token.refreshMarginSeconds} s before it ends`,
      { blocks: !issued.defaulted },
    );
  } catch (error) {
    return check(
      'token',
      `a token from ${TOKEN_ENDPOINT_PATH}`,
      'fail',
      error instanceof Error ? error.message : String(error),
      {
        fix: 'check the client id and secret in the credentials file (a rotated secret must be downloaded again)',
      },
    );
  }
}
