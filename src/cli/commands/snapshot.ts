import { snapshotNote } from '../../platform/api/snapshot-note.js';
import { Command } from 'commander';
import { UsageError } from '../../shared/usage-error.js';
import type { SnapshotJob } from '../../platform/jobs/snapshot-job.js';
import { nextPollDelay } from '../../platform/jobs/poll-delay.js';
import { waitForSnapshotJob } from '../../platform/jobs/wait-for-snapshot-job.js';
import type { JobPhase } from '../../platform/vocabulary/vocabulary.js';
import { ExitCode } from '../exit-codes.js';
import { examples, positiveSeconds } from '../option-parsers.js';
import { ProgressLine, progressBar } from '../output/progress-line.js';
import { formatFields } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

interface SnapshotOptions extends PlatformCommandOptions {
  readonly sla?: string;
  readonly wait?: boolean;
  readonly timeout?: number;
  readonly pollInterval?: number;
}

const PHASE_TEXT: Record<JobPhase, string> = {
  in_progress: 'in progress',
  succeeded: 'succeeded',
  failed: 'FAILED',
  canceled: 'CANCELED',
  unrecognised: 'unrecognised status',
};

/** `paw snapshot <workloadId> [--sla ID] [--wait]`. */
export function snapshotCommand(): Command {
  return withPlatformOptions(
    new Command('snapshot')
      .description(
        'take an on-demand snapshot of a vSphere VM or SQL Server database, and optionally wait for it',
      )
      .argument('<workloadId>', 'the workload to snapshot')
      .option('--sla <slaDomainId>', 'SLA Domain whose retention the snapshot gets')
      .option('--wait', 'wait for the snapshot job to finish, showing its progress')
      .option('--timeout <seconds>', 'with --wait: stop waiting after this long', positiveSeconds)
      .option(
        '--poll-interval <seconds>',
        'with --wait: seconds between status reads (default: as the worker polls, worker.snapshotPoll)',
        positiveSeconds,
      )
      .addHelpText(
        'after',
        "\nWithout --sla, the workload's own SLA Domain sets the retention; a workload without one\n" +
          'gets a snapshot that is kept forever (paw warns). Exit code 1 when the job fails.\n' +
          examples(
            'paw snapshot <workloadId> --sla <slaDomainId> --wait',
            'paw snapshot <workloadId> --json',
          ),
      ),
  ).action((workloadId: string, options: SnapshotOptions) =>
    withPlatformClient(options, async ({ client, output, loaded }) => {
      const { api } = client;
      const workload = await api.workloads.get(workloadId);
      const decision = api.vocabulary.snapshotDecision(workload.type);
      if (decision.action === 'skip') {
        throw new UsageError(
          `workload ${workload.name} (${workload.id}): ${decision.reason}; nothing was triggered`,
        );
      }
      if (decision.kind === undefined) {
        output.warn(
          `workload ${workload.name} is a "${workload.type}", a type paw does not recognise: ` +
            'sending the snapshot anyway; the platform decides',
        );
      }
      if (options.sla === undefined && workload.slaDomainId == null) {
        output.warn(
          `workload ${workload.name} has no SLA Domain and no --sla was given:\n` +
            'this snapshot will be KEPT FOREVER (it never expires and its storage is never freed).\n' +
            'Pass --sla <slaDomainId> to give it a retention (see `paw sla list`).',
        );
      }
      const trigger = await api.workloads.takeSnapshot(workload, {
        slaDomainId: options.sla,
        note: snapshotNote('paw snapshot'),
      });
      if (!options.wait) {
        output.result(jobJson(trigger.job, undefined), () =>
          formatFields([
            ['snapshot job', trigger.job.id],
            ['workload', `${workload.name} (${workload.id})`],
            ['status', trigger.job.status],
          ]),
        );
        output.note(`follow it with: paw events list --object ${workload.id}`);
        return;
      }

      output.note(`snapshot job ${trigger.job.id} started for ${workload.name}`);
      const triggeredAt = Date.now();
      const progress = new ProgressLine();
      const stop = new AbortController();
      const onSignal = () => stop.abort(new Error('interrupted'));
      process.once('SIGINT', onSignal);
      try {
        const result = await waitForSnapshotJob({
          read: (signal) => api.workloads.readSnapshotJob(trigger.tracking, signal),
          initial: trigger.job,
          nextDelay: (last) => {
            if (options.pollInterval !== undefined) return options.pollInterval * 1000;
            // As the worker polls: often at first, then by the job's age and progress.
            const now = Date.now();
            return nextPollDelay({
              now,
              triggeredAt,
              startedAt: last?.startTime === undefined ? undefined : Date.parse(last.startTime),
              progress: last?.progress,
              deadline: Number.POSITIVE_INFINITY,
              ...loaded.settings.worker.snapshotPoll,
            });
          },
          timeoutMs: options.timeout === undefined ? undefined : options.timeout * 1000,
          signal: stop.signal,
          onUpdate: ({ job }) => progress.update(`${progressBar(job.progress)}  ${job.status}`),
          onReadFailure: (error, failures) =>
            progress.update(
              `status read failed (${failures} in a row), retrying: ${describe(error)}`,
            ),
        });
        progress.done();
        const { job, phase } = result;
        output.result(jobJson(job, phase, result.timedOut), () =>
          formatFields([
            ['snapshot job', job.id],
            ['workload', `${workload.name} (${workload.id})`],
            [
              'result',
              result.timedOut
                ? `still ${job.status} after ${options.timeout ?? 0} s (stopped waiting; the job goes on)`
                : `${PHASE_TEXT[phase]} (${job.status})`,
            ],
            ['snapshot', job.snapshotId],
            ['error', job.errorMessage],
          ]),
        );
        if (phase !== 'succeeded') process.exitCode = ExitCode.failure;
      } catch (error) {
        progress.done();
        if (stop.signal.aborted) {
          output.note(`stopped waiting; snapshot job ${trigger.job.id} goes on on the platform`);
          process.exitCode = ExitCode.failure;
          return;
        }
        throw error;
      } finally {
        process.removeListener('SIGINT', onSignal);
      }
    }),
  );
}

function jobJson(job: SnapshotJob, phase: JobPhase | undefined, timedOut = false): unknown {
  const { phase: _classified, ...fields } = job;
  return { ...fields, ...(phase === undefined ? {} : { phase, timedOut }) };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
