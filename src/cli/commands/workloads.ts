import { Command } from 'commander';
import type { Snapshot } from '../../platform/records/snapshot.js';
import type { Workload } from '../../platform/records/workload.js';
import { printList, withListLimit, type ListLimitOptions } from '../list-limit.js';
import { examples } from '../option-parsers.js';
import { formatFields, type Column } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

const workloadColumns: Column<Workload>[] = [
  { header: 'id', value: (w) => w.id },
  { header: 'name', value: (w) => w.name },
  { header: 'type', value: (w) => w.type },
  { header: 'cluster', value: (w) => w.clusterName ?? w.clusterId },
  { header: 'sla domain', value: (w) => w.slaDomainName ?? w.slaDomainId },
];

const snapshotColumns: Column<Snapshot>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'date', value: (s) => s.date },
  { header: 'on demand', value: (s) => (s.isOnDemand ? 'yes' : 'no') },
  { header: 'sla domain', value: (s) => s.slaDomainId },
  {
    header: 'expires',
    value: (s) => s.expirationDate ?? (s.slaDomainId == null ? 'never (kept forever)' : undefined),
  },
];

/** `paw workloads list|get|snapshots`. */
export function workloadsCommand(): Command {
  const workloads = new Command('workloads')
    .description('list and inspect workloads (protected objects) and their snapshots')
    .addHelpText(
      'after',
      examples('paw workloads list --type VSPHERE_VM', 'paw workloads get <workloadId>'),
    );

  withListLimit(
    withPlatformOptions(
      workloads
        .command('list')
        .description('list workloads, optionally filtered')
        .option('--name <text>', 'names containing this text (case-insensitive)')
        .option('--type <type>', 'workload type, e.g. VSPHERE_VM, MSSQL_DATABASE')
        .option('--cluster <clusterId>', 'workloads on this cluster')
        .option('--sla <slaDomainId>', 'workloads protected by this SLA Domain')
        .addHelpText(
          'after',
          examples(
            'paw workloads list --credentials sa.json',
            'paw workloads list --name prod-sql --type MSSQL_DATABASE --json',
          ),
        ),
    ),
  ).action(
    (
      options: PlatformCommandOptions &
        ListLimitOptions & { name?: string; type?: string; cluster?: string; sla?: string },
    ) =>
      withPlatformClient(options, async ({ client, output }) => {
        const list = client.api.workloads.list({
          name: options.name,
          type: options.type,
          clusterId: options.cluster,
          slaDomainId: options.sla,
        });
        await printList(list, workloadColumns, options, output);
      }),
  );

  withPlatformOptions(
    workloads
      .command('get')
      .description('show one workload')
      .argument('<workloadId>', 'the workload id')
      .addHelpText('after', examples('paw workloads get 3f0c...-...')),
  ).action((workloadId: string, options: PlatformCommandOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      const workload = await client.api.workloads.get(workloadId);
      output.result(workload, () =>
        formatFields([
          ['id', workload.id],
          ['name', workload.name],
          ['type', workload.type],
          ['cluster', `${workload.clusterName ?? '-'} (${workload.clusterId ?? '-'})`],
          [
            'sla domain',
            workload.slaDomainId == null
              ? 'none (an on-demand snapshot without --sla is kept forever)'
              : `${workload.slaDomainName ?? '-'} (${workload.slaDomainId})`,
          ],
        ]),
      );
    }),
  );

  withListLimit(
    withPlatformOptions(
      workloads
        .command('snapshots')
        .description("list a workload's snapshots, newest first")
        .argument('<workloadId>', 'the workload id')
        .addHelpText('after', examples('paw workloads snapshots <workloadId> --limit 5')),
    ),
  ).action((workloadId: string, options: PlatformCommandOptions & ListLimitOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      await printList(client.api.workloads.snapshots(workloadId), snapshotColumns, options, output);
    }),
  );

  return workloads;
}
