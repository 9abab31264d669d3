import { Command } from 'commander';
import { UsageError } from '../../shared/usage-error.js';
import {
  SLA_FILTER_FIELDS,
  describePause,
  pausedClustersOf,
  type SlaDomain,
  type SlaDomainFilter,
} from '../../platform/records/sla-domain.js';
import {
  FREQUENCY_UNITS,
  RETENTION_UNITS,
  type SlaDomainChanges,
} from '../../platform/rest/sla-domains.js';
import { printList, withListLimit, type ListLimitOptions } from '../list-limit.js';
import { collect, examples, oneOf, positiveInteger } from '../option-parsers.js';
import { formatFields, formatTable, type Column } from '../output/table.js';
import type { Output } from '../output/output.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

const slaColumns: Column<SlaDomain>[] = [
  { header: 'id', value: (s) => s.id },
  { header: 'name', value: (s) => s.name },
  {
    header: 'frequency',
    value: (s) => (s.frequency ? `${s.frequency.interval} ${s.frequency.unit}` : undefined),
  },
  {
    header: 'retention',
    value: (s) => (s.retention ? `${s.retention.duration} ${s.retention.unit}` : undefined),
  },
  { header: 'workloads', value: (s) => s.protectedWorkloadCount },
  { header: 'paused on', value: (s) => pausedOn(s) },
  // A cluster-local SLA Domain exists on that cluster only (blank: a global one).
  { header: 'local to', value: (s) => s.localTo?.clusterName },
];

function pausedOn(sla: SlaDomain): string {
  const clusters = sla.clusters ?? undefined;
  const paused = pausedClustersOf(sla);
  const unknown = (clusters ?? []).filter((cluster) => cluster.pauseStatus === 'UNKNOWN');
  const parts = [
    paused.length === 0
      ? undefined
      : clusters === undefined
        ? `${paused.length} cluster${paused.length === 1 ? '' : 's'}`
        : `${paused.length}/${clusters.length} clusters`,
    unknown.length === 0 ? undefined : `${unknown.length} unknown`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

function showSla(output: Output, sla: SlaDomain): void {
  output.result(sla, () => {
    const fields = formatFields([
      ['id', sla.id],
      ['name', sla.name],
      [
        'local to',
        sla.localTo === undefined
          ? undefined
          : `cluster ${sla.localTo.clusterName} (${sla.localTo.clusterId})`,
      ],
      ['description', sla.description],
      ['object types', sla.objectTypes],
      [
        'frequency',
        sla.frequency ? `every ${sla.frequency.interval} ${sla.frequency.unit}` : undefined,
      ],
      ['retention', sla.retention ? `${sla.retention.duration} ${sla.retention.unit}` : undefined],
      ['workloads', sla.protectedWorkloadCount],
    ]);
    const clusters = sla.clusters ?? [];
    return clusters.length === 0
      ? fields
      : `${fields}\n${formatTable(
          [
            { header: 'cluster id', value: (c: (typeof clusters)[number]) => c.clusterId },
            { header: 'cluster', value: (c: (typeof clusters)[number]) => c.clusterName },
            { header: 'pause status', value: (c: (typeof clusters)[number]) => c.pauseStatus },
            {
              header: 'paused by',
              value: (c: (typeof clusters)[number]) =>
                c.pause === undefined ? undefined : describePause(c.pause),
            },
          ],
          clusters,
        )}`;
  });
}

interface DefinitionOptions {
  readonly name?: string;
  readonly description?: string;
  readonly objectTypes?: string[];
  readonly frequency?: (typeof FREQUENCY_UNITS)[number];
  readonly every?: number;
  readonly retention?: number;
  readonly retentionUnit?: (typeof RETENTION_UNITS)[number];
}

function addDefinitionOptions(command: Command, forCreate: boolean): Command {
  return command
    .option('--name <name>', forCreate ? 'name of the SLA Domain (required)' : 'new name')
    .option('--description <text>', 'free text')
    .option(
      '--object-types <types>',
      'workload types it protects, comma-separated (e.g. VSPHERE_VM,MSSQL_DATABASE)',
      collect,
    )
    .option(
      `--frequency <unit>`,
      `how often: ${FREQUENCY_UNITS.join(', ')}`,
      oneOf(FREQUENCY_UNITS),
    )
    .option('--every <n>', 'with --frequency: every N units (default 1)', positiveInteger)
    .option('--retention <n>', 'how long snapshots are kept, in --retention-unit', positiveInteger)
    .option(
      `--retention-unit <unit>`,
      `${RETENTION_UNITS.join(', ')} (default DAYS)`,
      oneOf(RETENTION_UNITS),
    );
}

function changesFrom(options: DefinitionOptions): SlaDomainChanges {
  if (options.every !== undefined && options.frequency === undefined) {
    throw new UsageError('--every needs --frequency (e.g. --frequency HOURLY --every 4)');
  }
  if (options.retentionUnit !== undefined && options.retention === undefined) {
    throw new UsageError(
      '--retention-unit needs --retention (e.g. --retention 4 --retention-unit WEEKS)',
    );
  }
  return {
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.objectTypes === undefined ? {} : { objectTypes: options.objectTypes }),
    ...(options.frequency === undefined
      ? {}
      : { frequency: { unit: options.frequency, interval: options.every ?? 1 } }),
    ...(options.retention === undefined
      ? {}
      : { retention: { unit: options.retentionUnit ?? 'DAYS', duration: options.retention } }),
  };
}

/** `paw sla list|get|create|update|delete|assign|unassign|pause|resume`. */
export function slaCommand(): Command {
  const sla = new Command('sla')
    .description('manage SLA Domains: protection policies, their workloads and their pause state')
    .addHelpText(
      'after',
      examples('paw sla list', 'paw sla pause <slaDomainId> --cluster <clusterId>'),
    );

  withListLimit(
    withPlatformOptions(
      sla
        .command('list')
        .description('list SLA Domains (one filter at a time, as the platform allows)')
        .option('--name <text>', 'names containing this text')
        .option('--paused', 'only SLA Domains paused on at least one cluster')
        .option(
          '--filter-field <field>',
          `raw filter: ${SLA_FILTER_FIELDS.join(', ')}`,
          oneOf(SLA_FILTER_FIELDS),
        )
        .option('--filter-text <text>', 'value for --filter-field')
        .addHelpText('after', examples('paw sla list --name Gold', 'paw sla list --paused --json')),
    ),
  ).action(
    (
      options: PlatformCommandOptions &
        ListLimitOptions & {
          name?: string;
          paused?: boolean;
          filterField?: (typeof SLA_FILTER_FIELDS)[number];
          filterText?: string;
        },
    ) => {
      const filters: SlaDomainFilter[] = [
        ...(options.name === undefined
          ? []
          : [{ filterField: 'NAME' as const, filterText: options.name }]),
        ...(options.paused
          ? [{ filterField: 'SHOW_PAUSED_SLAS_ONLY' as const, filterText: 'true' }]
          : []),
        ...(options.filterField === undefined
          ? []
          : [{ filterField: options.filterField, filterText: options.filterText }]),
      ];
      if (filters.length > 1) {
        throw new UsageError('give one filter at a time: --name, --paused or --filter-field');
      }
      if (options.filterText !== undefined && options.filterField === undefined) {
        throw new UsageError('--filter-text needs --filter-field');
      }
      return withPlatformClient(options, async ({ client, output }) => {
        await printList(client.api.slaDomains.list(filters[0] ?? {}), slaColumns, options, output);
      });
    },
  );

  withPlatformOptions(
    sla
      .command('get')
      .description('show an SLA Domain, with its pause status per cluster')
      .argument('<slaDomainId>')
      .addHelpText('after', examples('paw sla get <slaDomainId>')),
  ).action((id: string, options: PlatformCommandOptions) =>
    withPlatformClient(options, async ({ client, output }) =>
      showSla(output, await client.api.slaDomains.get(id)),
    ),
  );

  withPlatformOptions(
    addDefinitionOptions(sla.command('create').description('create an SLA Domain'), true)
      .option(
        '--cluster <clusterIds>',
        'clusters it applies to (repeatable or comma-separated)',
        collect,
      )
      .addHelpText(
        'after',
        examples(
          'paw sla create --name Nightly --object-types VSPHERE_VM,MSSQL_DATABASE --frequency DAILY --retention 30',
        ),
      ),
  ).action((options: PlatformCommandOptions & DefinitionOptions & { cluster?: string[] }) => {
    const changes = changesFrom(options);
    const missing = [
      changes.name === undefined ? '--name' : undefined,
      changes.objectTypes === undefined ? '--object-types' : undefined,
      changes.frequency === undefined ? '--frequency' : undefined,
      changes.retention === undefined ? '--retention' : undefined,
    ].filter((flag) => flag !== undefined);
    if (
      changes.name === undefined ||
      changes.objectTypes === undefined ||
      changes.frequency === undefined ||
      changes.retention === undefined
    ) {
      throw new UsageError(`sla create needs ${missing.join(', ')}`);
    }
    return withPlatformClient(options, async ({ client, output }) => {
      const created = await client.rest.slaDomains.create({
        name: changes.name ?? '',
        description: changes.description,
        objectTypes: changes.objectTypes ?? [],
        frequency: changes.frequency ?? { unit: 'DAILY', interval: 1 },
        retention: changes.retention ?? { unit: 'DAYS', duration: 1 },
        clusterIds: options.cluster,
      });
      showSla(output, created);
    });
  });

  withPlatformOptions(
    addDefinitionOptions(
      sla
        .command('update')
        .description('change an SLA Domain (only the fields given)')
        .argument('<slaDomainId>'),
      false,
    ).addHelpText(
      'after',
      examples('paw sla update <slaDomainId> --retention 8 --retention-unit WEEKS'),
    ),
  ).action((id: string, options: PlatformCommandOptions & DefinitionOptions) => {
    const changes = changesFrom(options);
    if (Object.keys(changes).length === 0) {
      throw new UsageError(
        'nothing to change: give at least one of --name, --description, --object-types, --frequency, --retention',
      );
    }
    return withPlatformClient(options, async ({ client, output }) =>
      showSla(output, await client.rest.slaDomains.update(id, changes)),
    );
  });

  withPlatformOptions(
    sla
      .command('delete')
      .description('delete an SLA Domain (it must protect no workload)')
      .argument('<slaDomainId>')
      .addHelpText('after', examples('paw sla delete <slaDomainId>')),
  ).action((id: string, options: PlatformCommandOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      await client.rest.slaDomains.delete(id);
      output.result({ id, deleted: true }, () => `deleted SLA Domain ${id}\n`);
    }),
  );

  for (const [name, description, verb] of [
    ['assign', 'protect workloads with an SLA Domain', 'assign'],
    ['unassign', "remove an SLA Domain's protection from workloads", 'unassign'],
  ] as const) {
    withPlatformOptions(
      sla
        .command(name)
        .description(description)
        .argument('<slaDomainId>')
        .argument('<workloadIds...>', 'one or more workload ids')
        .addHelpText('after', examples(`paw sla ${name} <slaDomainId> <workloadId> <workloadId>`)),
    ).action((id: string, workloadIds: string[], options: PlatformCommandOptions) =>
      withPlatformClient(options, async ({ client, output }) =>
        showSla(output, await client.rest.slaDomains[verb](id, workloadIds)),
      ),
    );
  }

  for (const [name, description] of [
    ['pause', 'pause an SLA Domain: no new snapshots on its clusters (existing ones are kept)'],
    ['resume', 'resume a paused SLA Domain'],
  ] as const) {
    withPlatformOptions(
      sla
        .command(name)
        .description(description)
        .argument('<slaDomainId>')
        .option(
          '--cluster <clusterIds>',
          'only on these clusters (default: all of its clusters)',
          collect,
        )
        .addHelpText(
          'after',
          examples(
            `paw sla ${name} <slaDomainId>`,
            `paw sla ${name} <slaDomainId> --cluster <clusterId>`,
          ),
        ),
    ).action((id: string, options: PlatformCommandOptions & { cluster?: string[] }) =>
      withPlatformClient(options, async ({ client, output }) =>
        showSla(output, await client.api.slaDomains[name](id, options.cluster)),
      ),
    );
  }

  return sla;
}
