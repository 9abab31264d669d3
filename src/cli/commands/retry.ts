import { Command } from 'commander';
import type { SnapshotDefinition } from '../../definitions/snapshot-definition.js';
import {
  checkOptionsFrom,
  findDefinition,
  loadDefinitions,
} from '../../definitions/load-definitions.js';
import { UsageError } from '../../errors/usage-error.js';
import { silentLogger } from '../../log/logger.js';
import { OutcomeQueries } from '../../outcomes/outcome-queries.js';
import { OutcomeStore } from '../../outcomes/outcome-store.js';
import { ITEM_STATUSES, isActiveStatus, type ItemStatus } from '../../outcomes/outcome-status.js';
import { RunProducer } from '../../queue/run-producer.js';
import { RunQueues } from '../../queue/run-queues.js';
import { RunFirer } from '../../scheduler/run-firer.js';
import { loadCommandSettings } from '../command-settings.js';
import { choiceList } from '../option-parsers.js';
import { withCommandRedis } from '../redis-session.js';

/** What a retry takes again unless told otherwise: every item that ended without success. */
const DEFAULT_STATUSES: readonly ItemStatus[] = ['failed', 'timed-out', 'canceled'];

interface RetryOptions {
  status?: ItemStatus[];
  jobs?: string;
  json?: boolean;
}

/**
 * `paw retry <runId>`: a new manual run of a snapshot run's definition over just the workloads
 * whose items ended in the given statuses, recorded with `retry of <runId>` as its reason. A
 * window or a rotation is one unit: it is run again whole with `paw run <id>`.
 */
export function retryCommand(): Command {
  return new Command('retry')
    .description('run again, as a new run, the workloads of a snapshot run that did not succeed')
    .argument('<runId>', 'the run to retry (paw runs lists them)')
    .option(
      '--status <list>',
      `the item statuses to retry (default: ${DEFAULT_STATUSES.join(',')})`,
      choiceList(ITEM_STATUSES),
    )
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--json', 'print the new run as JSON')
    .addHelpText(
      'after',
      '\nThe new run uses the definition as it is now, with its targets narrowed to those workloads;\n' +
        'a worker runs it. Exit codes: 0 enqueued, or nothing to retry; 2 bad usage (an unknown or\n' +
        'active run, a run of another kind).',
    )
    .action(async (runId: string, options: RetryOptions) => {
      const { settings } = await loadCommandSettings(options);
      const definitions = await loadDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
      const statuses = options.status ?? [...DEFAULT_STATUSES];
      await withCommandRedis(settings, async (redis) => {
        const store = new OutcomeStore(redis, settings.redis.prefix);
        const run = await store.getRun(runId);
        if (run === undefined) {
          throw new UsageError(`no run has the id ${runId} (paw runs lists them)`);
        }
        if (isActiveStatus(run.status)) {
          throw new UsageError(`${runId} is still ${run.status}: retry it once it has ended`);
        }
        if (run.kind !== 'snapshot') {
          throw new UsageError(
            `${runId} is a ${run.kind} run, which is one unit: run it again with paw run ${run.definitionId}`,
          );
        }
        const { definition } = findDefinition(definitions, run.definitionId, settings.jobs.dir);
        if (definition.kind !== 'snapshot') {
          throw new UsageError(
            `${run.definitionId} is now a ${definition.kind} definition, not the snapshot one ${runId} ran: nothing to retry it with`,
          );
        }
        const ids: string[] = [];
        for await (const item of new OutcomeQueries(redis, settings.redis.prefix).items({
          runId,
          statuses,
        })) {
          ids.push(item.target ?? item.itemKey);
        }
        if (ids.length === 0) {
          const nothing = { retryOf: runId, statuses, workloads: 0, runId: null };
          process.stdout.write(
            options.json === true
              ? `${JSON.stringify(nothing, null, 2)}\n`
              : `${runId}: no item ended ${statuses.join(' or ')}: nothing to retry\n`,
          );
          return;
        }
        const narrowed: SnapshotDefinition = { ...definition, targets: { ids } };
        const queues = new RunQueues(redis, settings);
        try {
          const firer = new RunFirer(store, new RunProducer(queues), silentLogger());
          const fired = await firer.fire(narrowed, new Date(), 'manual', {
            ignoreOverlap: true,
            note: `retry of ${runId}: ${ids.length} workload(s) whose items ended ${statuses.join(' or ')}`,
          });
          const result = {
            retryOf: runId,
            statuses,
            workloads: ids.length,
            runId: fired.runId,
            status: fired.status,
          };
          process.stdout.write(
            options.json === true
              ? `${JSON.stringify(result, null, 2)}\n`
              : `${fired.runId} ${fired.status}: retry of ${runId}, ${ids.length} workload(s)\n`,
          );
        } finally {
          await queues.close();
        }
      });
    });
}
