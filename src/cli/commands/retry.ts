import { Command } from 'commander';
import { checkOptionsFrom, loadDefinitions } from '../../definitions/load-definitions.js';
import { silentLogger } from '../../shared/logger.js';
import { ITEM_STATUSES, type ItemStatus } from '../../outcomes/outcome-status.js';
import { RunQueues } from '../../queue/run-queues.js';
import { OperatorActions } from '../../outcomes/operator-actions.js';
import { DEFAULT_RETRY_STATUSES, RunRetry } from '../../scheduler/run-retry.js';
import { loadCommandSettings } from '../command-settings.js';
import { operatorName } from '../operator-name.js';
import { choiceList } from '../option-parsers.js';
import { withCommandRedis } from '../redis-session.js';
import { printable } from '../../shared/printable.js';

interface RetryOptions {
  status?: ItemStatus[];
  reason?: string;
  by?: string;
  jobs?: string;
  json?: boolean;
}

/**
 * `paw retry <runId>`: a new manual run of a snapshot run's definition over just the workloads
 * whose items ended in the given statuses, recorded with `retry of <runId>` as its reason. A
 * window or a rotation is one unit: it is run again whole with `paw run <id>`. The work is
 * RunRetry's (src/scheduler/run-retry.ts), which the dashboard's retry button calls too.
 */
export function retryCommand(): Command {
  return new Command('retry')
    .description('run again, as a new run, the workloads of a snapshot run that did not succeed')
    .argument('<runId>', 'the run to retry (paw runs lists them)')
    .option(
      '--status <list>',
      `the item statuses to retry (default: ${DEFAULT_RETRY_STATUSES.join(',')})`,
      choiceList(ITEM_STATUSES),
    )
    .option('--reason <text>', 'why (recorded with the action and on the new run)')
    .option('--by <name>', 'who retries it (default: user@host)')
    .option('--jobs <dir>', 'folder of job definitions (default: jobs.dir, PAW_JOBS_DIR or ./jobs)')
    .option('--json', 'print the new run as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ paw retry nightly-vms@20261124T000000Z --reason "cluster-b is back"\n' +
        '  $ paw retry nightly-vms@20261124T000000Z --status timed-out --json\n' +
        '\nThe new run uses the definition as it is now, with its targets narrowed to those workloads;\n' +
        'a worker runs it. Retrying the same run again reports the first retry (outcome "exists")\n' +
        'instead of starting another: to retry what still failed, retry the retry run.\n' +
        'Exit codes: 0 enqueued, already retried, or nothing to retry; 2 bad usage (an unknown or\n' +
        'active run, a run of another kind).',
    )
    .action(async (runId: string, options: RetryOptions) => {
      const { settings } = await loadCommandSettings(options);
      const definitions = await loadDefinitions(settings.jobs.dir, checkOptionsFrom(settings));
      const reason = options.reason?.trim();
      const result = await withCommandRedis(settings, async (redis, outcomes) => {
        const queues = new RunQueues(redis, settings);
        try {
          const retry = new RunRetry(
            outcomes,
            redis,
            settings.redis.prefix,
            queues,
            new OperatorActions(redis, settings.redis.prefix, silentLogger()),
            settings.outcomes.retentionDays * 86_400,
          );
          return await retry.retry(
            definitions.map((loaded) => loaded.definition),
            {
              runId,
              by: options.by ?? operatorName(),
              via: 'cli',
              ...(options.status === undefined ? {} : { statuses: options.status }),
              ...(reason === undefined || reason === '' ? {} : { reason }),
            },
          );
        } finally {
          await queues.close();
        }
      });
      if (options.json === true) {
        process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
        return;
      }
      const line =
        result.outcome === 'nothing'
          ? `${runId}: no item ended ${result.statuses.join(' or ')}: nothing to retry`
          : result.outcome === 'exists'
            ? `${runId} was already retried: ${result.runId ?? ''} (${result.status ?? '?'}, ${result.workloads} workload(s)); retry that run to go again`
            : `${result.runId ?? ''} ${result.status ?? ''}: retry of ${runId}, ${result.workloads} workload(s)`;
      process.stdout.write(`${printable(line)}\n`);
    });
}
