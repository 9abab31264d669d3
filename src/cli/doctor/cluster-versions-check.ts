import { supportsPersonalAccessTokens } from '../../platform/cluster/cluster-version.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';

/**
 * Where a personal access token is configured, whether the clusters named with `--cluster-url`
 * run software that accepts its sessions (9.6.0 or later). Never blocks: the jobs do not use it.
 */
export async function clusterVersionsCheck(context: DoctorContext): Promise<CheckResult[]> {
  if (context.settings.platform.personalAccessToken.clientId === undefined) return [];
  if (context.options.clusterUrls.length === 0) {
    const result = check(
      'clusters.pat',
      'cluster versions for personal access token sessions',
      'skip',
      'a personal access token is configured, but no cluster address was given',
      { blocks: false, fix: 'pass --cluster-url URL for each cluster you open sessions on' },
    );
    context.report(result);
    return [result];
  }
  const results: CheckResult[] = [];
  for (const url of context.options.clusterUrls) {
    let result: CheckResult;
    try {
      const version = await context.client.clusters.version(url, context.signal);
      result = supportsPersonalAccessTokens(version)
        ? check(`clusters.pat.${url}`, `cluster ${url}`, 'ok', `runs ${version}`, { blocks: false })
        : check(
            `clusters.pat.${url}`,
            `cluster ${url}`,
            'warn',
            `runs ${version}: personal access token sessions need 9.6.0 or later`,
            {
              blocks: false,
              fix: 'upgrade the cluster, or use service-account sessions on it',
            },
          );
    } catch (error) {
      result = check(
        `clusters.pat.${url}`,
        `cluster ${url}`,
        'warn',
        error instanceof Error ? error.message : String(error),
        {
          blocks: false,
        },
      );
    }
    context.report(result);
    results.push(result);
  }
  return results;
}
