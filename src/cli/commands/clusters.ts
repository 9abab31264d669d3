import { Command } from 'commander';
import { CLUSTER_TYPES, CONNECTION_STATES, type Cluster } from '../../platform/records/cluster.js';
import { printList, withListLimit, type ListLimitOptions } from '../list-limit.js';
import { examples, oneOf } from '../option-parsers.js';
import type { Column } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

const clusterColumns: Column<Cluster>[] = [
  { header: 'id', value: (c) => c.id },
  { header: 'name', value: (c) => c.name },
  { header: 'type', value: (c) => c.type },
  { header: 'state', value: (c) => c.connectionState },
  { header: 'version', value: (c) => c.version },
];

/** `paw clusters list`. */
export function clustersCommand(): Command {
  const clusters = new Command('clusters')
    .description('list the clusters the platform manages')
    .addHelpText('after', examples('paw clusters list --state Disconnected'));

  withListLimit(
    withPlatformOptions(
      clusters
        .command('list')
        .description('list clusters, optionally filtered')
        .option('--name <text>', 'names containing this text')
        .option('--type <type>', CLUSTER_TYPES.join(', '), oneOf(CLUSTER_TYPES))
        .option('--state <state>', CONNECTION_STATES.join(', '), oneOf(CONNECTION_STATES))
        .addHelpText(
          'after',
          examples('paw clusters list', 'paw clusters list --type OnPrem --json'),
        ),
    ),
  ).action(
    (
      options: PlatformCommandOptions &
        ListLimitOptions & { name?: string; type?: string; state?: string },
    ) =>
      withPlatformClient(options, async ({ client, output }) => {
        const list = client.api.clusters.list({
          name: options.name,
          type: options.type,
          connectionState: options.state,
        });
        await printList(list, clusterColumns, options, output);
      }),
  );
  return clusters;
}
