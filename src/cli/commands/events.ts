import { Command } from 'commander';
import { EVENT_SEVERITIES, type PlatformEvent } from '../../platform/records/platform-event.js';
import { printList, withListLimit, type ListLimitOptions } from '../list-limit.js';
import { examples, isoTime, oneOf } from '../option-parsers.js';
import type { Column } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

const eventColumns: Column<PlatformEvent>[] = [
  { header: 'time', value: (e) => e.time },
  { header: 'type', value: (e) => e.type },
  { header: 'status', value: (e) => e.status },
  { header: 'severity', value: (e) => e.severity?.replace(/^SEVERITY_/, '') },
  { header: 'object', value: (e) => e.objectName ?? e.objectId },
  { header: 'message', value: (e) => e.message },
];

interface EventOptions extends PlatformCommandOptions, ListLimitOptions {
  readonly object?: string;
  readonly type?: string;
  readonly status?: string;
  readonly severity?: string;
  readonly since?: string;
  readonly until?: string;
}

/** `paw events list`. */
export function eventsCommand(): Command {
  const events = new Command('events')
    .description('activity events: snapshot jobs, SLA Domain changes')
    .addHelpText('after', examples('paw events list --object <workloadId>'));

  withListLimit(
    withPlatformOptions(
      events
        .command('list')
        .description('list activity events, newest first')
        .option('--object <objectId>', 'events about this workload or SLA Domain')
        .option('--type <type>', 'e.g. BACKUP, CONFIGURATION')
        .option('--status <status>', 'e.g. SUCCESS, FAILURE, RUNNING')
        .option('--severity <severity>', EVENT_SEVERITIES.join(', '), oneOf(EVENT_SEVERITIES))
        .option(
          '--since <time>',
          'from this time (ISO 8601, or a duration ago such as 2h; inclusive)',
          isoTime,
        )
        .option(
          '--until <time>',
          'up to this time (ISO 8601, or a duration ago; inclusive)',
          isoTime,
        )
        .addHelpText(
          'after',
          examples(
            'paw events list --type BACKUP --status FAILURE --since 2025-01-31T00:00:00Z',
            'paw events list --object <workloadId> --limit 10 --json',
          ),
        ),
    ),
  ).action((options: EventOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      const list = client.api.events.list({
        objectId: options.object,
        type: options.type,
        status: options.status,
        severity: options.severity,
        startTime: options.since,
        endTime: options.until,
      });
      await printList(list, eventColumns, options, output);
    }),
  );
  return events;
}
