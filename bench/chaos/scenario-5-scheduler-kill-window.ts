import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import type { PawProcess } from '../../test/testkit/paw-process.js';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { startKillBed, type KillBed } from './support/kill-bed.js';
import type { PawFleet } from '../../test/testkit/paw-fleet.js';
import { chaosFleet } from './support/chaos-fleet.js';
import { SeededRandom } from './support/seeded-random.js';
import { WindowPauseWatch, type PauseSample } from './support/window-pause-watch.js';
import { eventually } from '../../test/testkit/eventually.js';

/**
 * Chaos 5: a maintenance window whose scheduler is SIGKILLed while it is open. Two set-ups run
 * the same window side by side, each on an SLA Domain of its own:
 *
 * - `split`: a `paw scheduler` and a `paw worker`; the scheduler is killed and restarted during
 *   the window, and (full form) killed for good before its end: no scheduler runs at the end.
 * - `start`: one `paw start` (scheduler and worker in one process) killed and restarted during
 *   the window, and (full form) killed just before the end and restarted only after it: the
 *   process that should resume is dead at the moment of the end.
 *
 * Through the REST API, every quarter second: each SLA Domain must read PAUSED from the pause
 * until the window's end, NOT_PAUSED within a slack after it, and the cluster an administrator
 * paused by hand beforehand must read PAUSED throughout. Each definition has exactly one run,
 * succeeded (the restarted schedulers did not open the window twice).
 */

/** How late after the window's end the resume may be seen (a killed process restarts first). */
const RESUME_SLACK_MS = 20_000;
/** How long after the fire the pause may take to show (processes on a busy 2-core machine). */
const PAUSE_SLACK_MS = 10_000;

interface Setup {
  readonly name: 'split' | 'start';
  readonly fleet: PawFleet;
  readonly slaDomainId: string;
  readonly definitionId: string;
  /** The process that schedules (in `start`, it also runs the window's jobs). */
  scheduler: PawProcess;
  readonly schedulerArgs: readonly string[];
  kills: number;
}

export const scenario: ChaosScenario = {
  id: 5,
  slug: 'scheduler-kill-window',
  title: 'the scheduler killed during a maintenance window: the SLA Domain is resumed at its end',
  async run(context: ChaosContext): Promise<ChaosVerdict> {
    const random = SeededRandom.fromEnvironment();
    const durationMs = context.quick ? 10_000 : 60_000;
    const killsDuring = context.quick ? 1 : 3;
    context.progress(
      `a ${durationMs / 1000} s window, ${killsDuring} kill(s) during it per set-up, ` +
        `seed ${random.seed} (CHAOS_SEED to replay)`,
    );
    const bed = await startKillBed('scheduler-kill-window');
    const setups: Setup[] = [];
    // Every fleet as soon as it exists, so a failed start still stops what did start.
    const fleetsToStop: PawFleet[] = [];
    let watch: WindowPauseWatch | undefined;
    try {
      const [cluster = '', handPaused = ''] = bed.sim.clusters
        .filter((c) => c.connectionState === 'Connected')
        .map((c) => c.id);
      const domains = [await newSlaDomain(bed, 'split'), await newSlaDomain(bed, 'start')];
      for (const slaDomainId of domains)
        await bed.admin.rest.slaDomains.pause(slaDomainId, [handPaused]);
      // An SLA Domain an administrator paused everywhere beforehand, in both windows too.
      const handDomain = await newSlaDomain(bed, 'hand-paused');
      await bed.admin.rest.slaDomains.pause(handDomain, [cluster, handPaused]);

      // The window opens once every process has had time to start on a busy machine.
      const opensAt = new Date(Math.ceil((Date.now() + 10_000) / 1000) * 1000);
      const endsAt = opensAt.getTime() + durationMs;
      const fleets = await Promise.all(
        (['split', 'start'] as const).map(async (name, index) => {
          const slaDomainId = domains[index] ?? '';
          const fleet = await chaosFleet(bed.redis, {
            redisUrl: bed.redisUrl,
            dir: bed.dir,
            credentialsFile: bed.adminFile,
            label: `window-${name}`,
          });
          fleetsToStop.push(fleet);
          const jobs = join(bed.dir, `jobs-${name}`);
          await mkdir(jobs, { recursive: true });
          const definitionId = `maintenance-${name}`;
          await writeFile(
            join(jobs, 'window.yaml'),
            `id: ${definitionId}\nkind: sla-window\n` +
              `schedule: { cron: '${cronAt(opensAt)}', timezone: UTC, duration: ${durationMs / 1000}s }\n` +
              `slaDomains: ${JSON.stringify({ ids: [slaDomainId, handDomain], clusterIds: [cluster, handPaused] })}\n`,
          );
          const schedulerArgs =
            name === 'split'
              ? ['scheduler', '--jobs', jobs]
              : ['start', '--jobs', jobs, '--kinds', 'sla-window'];
          const [scheduler] = await Promise.all([
            fleet.start(schedulerArgs),
            name === 'split' ? fleet.start(['worker', '--kinds', 'sla-window']) : undefined,
          ]);
          return { name, fleet, slaDomainId, definitionId, scheduler, schedulerArgs, kills: 0 };
        }),
      );
      setups.push(...fleets);
      if (Date.now() > opensAt.getTime() - 500) {
        return {
          passed: false,
          verdict: `the processes took too long to start (the machine is too busy): load ${loadavg()[0]?.toFixed(2)}`,
        };
      }
      context.progress(`processes ready; the window opens at ${opensAt.toISOString()}`);
      watch = new WindowPauseWatch(
        bed.admin,
        [...domains, handDomain].flatMap((slaDomainId) => [
          { slaDomainId, clusterId: cluster },
          { slaDomainId, clusterId: handPaused },
        ]),
      );
      watch.start();
      const pauses = watch;

      // Kill during the window, once each SLA Domain reads PAUSED.
      await Promise.all(
        setups.map(async (setup) => {
          await until(
            () => pauses.latest(setup.slaDomainId, cluster) === 'PAUSED',
            opensAt.getTime() + PAUSE_SLACK_MS,
          );
          const lastKillBy = endsAt - (context.quick ? 3_000 : 8_000);
          for (let kill = 1; kill <= killsDuring; kill++) {
            const slot = (lastKillBy - Date.now()) / (killsDuring - kill + 1);
            await sleep(random.between(0, Math.max(0, slot)));
            await setup.scheduler.stop('SIGKILL');
            setup.kills++;
            context.progress(
              `${setup.name}: ${setup.schedulerArgs[0]} SIGKILLed ${secondsFrom(opensAt.getTime())} into the window; restarting it`,
            );
            setup.scheduler = await setup.fleet.start(setup.schedulerArgs);
          }
          if (!context.quick) {
            // The full form: no scheduler at the end (split), or the whole process dead at the
            // end and back only after it (start).
            await sleep(Math.max(0, endsAt - 2_000 - Date.now()));
            await setup.scheduler.stop('SIGKILL');
            setup.kills++;
            context.progress(
              `${setup.name}: ${setup.schedulerArgs[0]} SIGKILLed 2 s before the end` +
                (setup.name === 'start' ? '; restarted 3 s after it' : '; left dead'),
            );
            if (setup.name === 'start') {
              await sleep(Math.max(0, endsAt + 3_000 - Date.now()));
              setup.scheduler = await setup.fleet.start(setup.schedulerArgs);
            }
          }
        }),
      );
      await until(
        () => domains.every((id) => pauses.latest(id, cluster) === 'NOT_PAUSED'),
        endsAt + RESUME_SLACK_MS,
      );
      await sleep(1_000); // a few more samples: the hand-paused cluster stays paused after the end
      await watch.stop();

      const problems: string[] = [];
      const figures: Record<string, number | string> = {
        windowSeconds: durationMs / 1000,
        seed: random.seed,
      };
      for (const setup of setups) {
        const samples = pauses.of(setup.slaDomainId, cluster);
        const verdict = judgeWindow(samples, opensAt.getTime(), endsAt);
        problems.push(...verdict.problems.map((p) => `${setup.name}: ${p}`));
        const hand = pauses.of(setup.slaDomainId, handPaused);
        const unpaused = hand.filter((sample) => sample.state !== 'PAUSED').length;
        if (hand.length === 0 || unpaused > 0) {
          problems.push(
            `${setup.name}: the hand-paused cluster read other than PAUSED ${unpaused} time(s)`,
          );
        }
        const runs = await new OutcomeQueries(bed.redis, setup.fleet.prefix).listRuns({
          definitionId: setup.definitionId,
        });
        if (runs.length !== 1 || runs[0]?.status !== 'succeeded') {
          problems.push(
            `${setup.name}: ${runs.length} run(s) (${runs.map((r) => r.status).join(', ')}), expected one succeeded`,
          );
        }
        figures[`${setup.name}Kills`] = setup.kills;
        figures[`${setup.name}PausedAfterSeconds`] = verdict.pausedAfterSeconds;
        figures[`${setup.name}ResumedAfterEndSeconds`] = verdict.resumedAfterEndSeconds;
        figures[`${setup.name}Samples`] = samples.length;
      }
      for (const clusterId of [cluster, handPaused]) {
        const hand = pauses.of(handDomain, clusterId);
        const unpaused = hand.filter((sample) => sample.state !== 'PAUSED').length;
        if (hand.length === 0 || unpaused > 0) {
          problems.push(`the SLA Domain paused by hand read other than PAUSED ${unpaused} time(s)`);
        }
      }
      figures['loadAverage1m'] = Number(loadavg()[0]?.toFixed(2));
      const kills = setups.reduce((sum, setup) => sum + setup.kills, 0);
      const describe = setups
        .map(
          (s) =>
            `${s.name}: paused ${String(figures[`${s.name}PausedAfterSeconds`])} s after the fire, ` +
            `resumed ${String(figures[`${s.name}ResumedAfterEndSeconds`])} s after the end`,
        )
        .join('; ');
      return {
        passed: problems.length === 0,
        verdict:
          `${kills} SIGKILLs during a ${durationMs / 1000} s window; ${describe}; hand pauses kept (a cluster and a whole SLA Domain)` +
          (problems.length === 0 ? '' : `; PROBLEMS: ${problems.join('; ')}`),
        figures,
      };
    } finally {
      await watch?.stop();
      await Promise.all(fleetsToStop.map((fleet) => fleet.stop().catch(() => undefined)));
      await bed.stop();
    }
  },
};

/**
 * What the samples of the watched cluster say: when it first read PAUSED, that it stayed PAUSED
 * until the end (half a second of grace: the end is the resume job's due time), and when it
 * first read NOT_PAUSED after that.
 */
function judgeWindow(
  samples: readonly PauseSample[],
  opensAt: number,
  endsAt: number,
): { problems: string[]; pausedAfterSeconds: number; resumedAfterEndSeconds: number } {
  const problems: string[] = [];
  const firstPaused = samples.find((s) => s.at >= opensAt && s.state === 'PAUSED');
  if (firstPaused === undefined || firstPaused.at > opensAt + PAUSE_SLACK_MS) {
    problems.push('not paused within 10 s of the fire');
  }
  const pausedAt = firstPaused?.at ?? Number.NaN;
  const early = samples.filter(
    (s) => s.at > pausedAt && s.at < endsAt - 500 && s.state !== 'PAUSED',
  );
  if (early.length > 0) {
    problems.push(
      `read ${early[0]?.state ?? ''} during the window, ${secondsFrom(opensAt, early[0]?.at)} after the fire`,
    );
  }
  const resumed = samples.find(
    (s) => s.at > pausedAt && s.at >= endsAt - 500 && s.state === 'NOT_PAUSED',
  );
  if (resumed === undefined)
    problems.push(`not resumed within ${RESUME_SLACK_MS / 1000} s of the end`);
  return {
    problems,
    pausedAfterSeconds: round((pausedAt - opensAt) / 1000),
    resumedAfterEndSeconds: round(((resumed?.at ?? Number.NaN) - endsAt) / 1000),
  };
}

async function newSlaDomain(bed: KillBed, name: string): Promise<string> {
  const domain = await bed.admin.rest.slaDomains.create({
    name: `chaos-${name}-${Math.random().toString(36).slice(2, 8)}`,
    objectTypes: ['VSPHERE_VM'],
    frequency: { unit: 'DAILY', interval: 1 },
    retention: { unit: 'DAYS', duration: 7 },
  });
  return domain.id;
}

/** A cron expression (seconds first, UTC) that fires once a day, at `at`'s second. */
function cronAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
}

/** Waits until `check` holds or `deadline` passes (then the judgement finds out what is missing). */
async function until(check: () => boolean, deadline: number): Promise<void> {
  await eventually('the watched state', check, {
    timeoutMs: Math.max(0, deadline - Date.now()),
    intervalMs: 100,
    otherwise: () => undefined,
  });
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

function secondsFrom(start: number, at = Date.now()): string {
  return `${((at - start) / 1000).toFixed(1)} s`;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}
