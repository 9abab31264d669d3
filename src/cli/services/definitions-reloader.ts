import { formatProblem } from '../../definitions/definition-problem.js';
import type { DefinitionSet } from '../../definitions/definition-set.js';
import { checkDefinitions, type CheckOptions } from '../../definitions/load-definitions.js';
import { watchPath, type PathWatch } from '../../shared/watch-path.js';
import type { Logger } from '../../shared/logger.js';
import type { ReloadResult } from '../../ops/metrics/definition-metrics.js';

/**
 * How long the folder must be quiet before it is read again: an editor's save, a `git pull` or a
 * Kubernetes ConfigMap update is several events in a few milliseconds, and one read should see
 * all of them.
 */
const SETTLE_MS = 300;

export interface DefinitionsReloaderOptions {
  readonly dir: string;
  readonly checkOptions: CheckOptions;
  readonly definitions: DefinitionSet;
  readonly logger: Logger;
  /** Watch the folder for changes (`jobs.watch`); SIGHUP reloads either way. */
  readonly watch: boolean;
  /** A status line for the operator's terminal (`paw scheduler: …`). */
  readonly status: (line: string) => void;
  /** Told what each reload came to (metrics). */
  readonly onReload?: (result: ReloadResult, count: number) => void;
}

export interface DefinitionsReloader {
  /** Reads the folder again now (what a change and SIGHUP do). */
  reload(): Promise<void>;
  close(): void;
}

/**
 * Reloads the job definitions without a restart: when a file in the folder changes (also when
 * kubelet swaps a ConfigMap volume's `..data` link: see watchPath), and on SIGHUP (the daemon convention, for a folder on a filesystem that sends no events). A valid
 * set replaces the running one; a set with any problem is refused with every problem in the
 * log, on `/readyz`'s detail and on the dashboard, and the last valid set keeps running.
 * Reloads never overlap: a change during one is read by the next.
 */
export function startDefinitionsReloader(options: DefinitionsReloaderOptions): DefinitionsReloader {
  const { dir, definitions, logger, status } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const readOnce = async (): Promise<void> => {
    const at = new Date();
    const report = await checkDefinitions(dir, options.checkOptions);
    if (report.problems.length > 0) {
      definitions.refuse(report.problems, at);
      const problems = report.problems.map(formatProblem);
      const running = definitions.current().length;
      logger.error(
        { dir: report.dir, problems },
        running === 0
          ? 'job definitions refused; there are none to run'
          : 'job definitions change refused; the last valid set keeps running',
      );
      options.onReload?.('refused', running);
      status(
        `definitions change refused (${problems.length} problem${problems.length === 1 ? '' : 's'}); ` +
          (running === 0 ? 'nothing is scheduled' : 'still running the last valid set') +
          `:\n  ${problems.join('\n  ')}`,
      );
      return;
    }
    const wasRefused = definitions.refused() !== undefined;
    const changes = definitions.replace(report.definitions.map((loaded) => loaded.definition));
    const changed = changes.added.length + changes.removed.length + changes.changed.length;
    options.onReload?.(changed === 0 ? 'unchanged' : 'applied', definitions.current().length);
    if (changed === 0) {
      if (wasRefused) status('definitions valid again (unchanged from the running set)');
      return;
    }
    logger.info({ dir: report.dir, ...changes }, 'job definitions reloaded');
    const parts = [
      ['added', changes.added],
      ['changed', changes.changed],
      ['removed', changes.removed],
    ] as const;
    status(
      `definitions reloaded: ${parts
        .filter(([, ids]) => ids.length > 0)
        .map(([what, ids]) => `${what} ${ids.join(', ')}`)
        .join('; ')}`,
    );
  };

  const reload = async (): Promise<void> => {
    if (closed) return;
    if (running !== undefined) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await readOnce();
        } catch (error) {
          logger.error({ err: error, dir }, 'could not read the job definitions; nothing changed');
        }
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
    });
    return running;
  };

  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void reload(), SETTLE_MS);
  };

  let watcher: PathWatch | undefined;
  if (options.watch) {
    try {
      watcher = watchPath(dir, {
        onChange: soon,
        onError: (error) => {
          logger.warn(
            { err: error, dir },
            'stopped watching the job definitions; SIGHUP still reloads',
          );
        },
      });
    } catch (error) {
      logger.warn({ err: error, dir }, 'cannot watch the job definitions; SIGHUP still reloads');
    }
  }
  const onHangUp = (): void => {
    status('SIGHUP: reading the job definitions again');
    void reload();
  };
  process.on('SIGHUP', onHangUp);

  return {
    reload,
    close: () => {
      closed = true;
      clearTimeout(timer);
      watcher?.close();
      process.off('SIGHUP', onHangUp);
    },
  };
}
