import type { SnapshotDefinition } from '../../definitions/snapshot-definition.js';
import { retentionOf } from '../../definitions/snapshot-definition.js';
import { NotFoundError } from '../../platform/http/platform-errors.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import { RunConfigurationError } from './run-configuration-error.js';

/** Where a run's snapshots are retained, resolved at fire time. */
export type ResolvedRetention =
  | { readonly slaDomainId: string; readonly slaDomainName: string; readonly keepForever: false }
  | { readonly slaDomainId: null; readonly keepForever: true };

/**
 * The retention SLA Domain of a snapshot run: `slaDomainId` is checked to exist, `slaDomainName`
 * is looked up by exact name (no match, or several, fails the run with the names paw saw), and
 * `keepForever: true` is passed through for the caller to warn about.
 */
export async function resolveRetention(
  definition: SnapshotDefinition,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<ResolvedRetention> {
  const retention = retentionOf(definition);
  if ('keepForever' in retention) return { slaDomainId: null, keepForever: true };

  if ('slaDomainId' in retention) {
    try {
      const sla = await platform.api.slaDomains.get(retention.slaDomainId, signal);
      return { slaDomainId: sla.id, slaDomainName: sla.name, keepForever: false };
    } catch (error) {
      if (error instanceof NotFoundError) {
        throw new RunConfigurationError(
          'RETENTION_NOT_FOUND',
          `retention.slaDomainId "${retention.slaDomainId}" is not an SLA Domain of the platform; ` +
            `fix the definition "${definition.id}" (paw sla list shows them)`,
        );
      }
      throw error;
    }
  }

  const wanted = retention.slaDomainName;
  const matches = await platform.api.slaDomains
    .list({ filterField: 'NAME_EXACT_MATCH', filterText: wanted }, signal)
    .toArray();
  const exact = matches.filter((sla) => sla.name === wanted);
  const [only, second] = exact;
  if (only !== undefined && second === undefined) {
    return { slaDomainId: only.id, slaDomainName: only.name, keepForever: false };
  }
  if (only === undefined) {
    throw new RunConfigurationError(
      'RETENTION_NOT_FOUND',
      `no SLA Domain is named "${wanted}" (retention.slaDomainName of "${definition.id}"); ` +
        'fix the name (paw sla list shows them) or use retention.slaDomainId',
    );
  }
  throw new RunConfigurationError(
    'RETENTION_AMBIGUOUS',
    `${exact.length} SLA Domains are named "${wanted}" (${exact.map((sla) => sla.id).join(', ')}); ` +
      `use retention.slaDomainId in "${definition.id}"`,
  );
}
