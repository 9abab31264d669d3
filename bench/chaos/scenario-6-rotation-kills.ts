import { stat } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { exampleDefinition } from '../../test/testkit/definitions.js';
import type { PawProcess } from '../../test/testkit/paw-process.js';
import { authenticates, createTestAccount, secretIn } from '../../test/testkit/service-accounts.js';
import { journalPathOf } from '../../src/job-kinds/rotate-secret/rotation-journal.js';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { startKillBed } from './support/kill-bed.js';
import type { PawFleet } from '../../test/testkit/paw-fleet.js';
import { chaosFleet } from './support/chaos-fleet.js';
import { SeededRandom } from './support/seeded-random.js';
import { eventually } from '../../test/testkit/eventually.js';

/**
 * Chaos 6: paw rotates its own secret (the hardest case: the secret it authenticates with is the
 * one it kills) and the rotating worker is killed, a hundred times: half the time at a crash
 * point of the rotation's journal protocol chosen at random (sometimes the recovering worker
 * too, at a recovery crash point), half the time by a SIGKILL at a random moment of the
 * rotation. After each kill a clean worker recovers, and the sink, paw's own credentials file,
 * must authenticate straight against the simulator (POST /api/client_token), with no journal
 * left and the run succeeded. One simulator, Redis, account and fleet serve every iteration.
 */

/** Where a rotation can be killed on purpose, in the order it reaches them. */
const ROTATION_POINTS = [
  'rotate.after-recovery-token',
  'rotate.after-platform-call', // twice: the one crash that loses a secret
  'rotate.after-journal',
  'rotate.after-platform-call',
  'rotate.after-sink-write',
  'rotate.after-journal-update',
  'rotate.after-verify',
  'rotate.after-outcome',
  'rotate.after-journal-delete',
] as const;

/** Where a recovery of an interrupted rotation can be killed (reached only when it rotates). */
const RECOVERY_POINTS = [
  'rotate.recovery-before-platform-call',
  'rotate.recovery.after-platform-call',
  'rotate.recovery.after-sink-write',
  'rotate.recovery.after-journal-update',
  'rotate.recovery.after-verify',
] as const;

/** How long an armed worker may take to reach its crash point before it counts as not reached. */
const ARMED_DEATH_TIMEOUT_MS = 60_000;

interface Tally {
  iterations: number;
  crashPointKills: number;
  recoveryKills: number;
  randomKills: number;
  randomKillsMidRotation: number;
  authenticated: number;
  failures: string[];
}

const WORKER_ARGS = ['worker', '--kinds', 'rotate-secret'] as const;

export const scenario: ChaosScenario = {
  id: 6,
  slug: 'rotation-kills',
  title: 'a rotation of paw’s own secret killed at random points: the sink always authenticates',
  async run(context: ChaosContext): Promise<ChaosVerdict> {
    const iterations = context.quick ? 8 : 100;
    const random = SeededRandom.fromEnvironment();
    context.progress(`${iterations} iterations, seed ${random.seed} (CHAOS_SEED to replay)`);
    const bed = await startKillBed('rotation-kills');
    let fleet: PawFleet | undefined;
    try {
      const account = await createTestAccount(bed.admin, bed.sim, bed.dir, 'paw-itself');
      fleet = await chaosFleet(bed.redis, {
        redisUrl: bed.redisUrl,
        dir: bed.dir,
        credentialsFile: account.file,
        label: 'rotation-kills',
      });
      const definition = exampleDefinition('rotate-secret', {
        id: 'rotate-paw-itself',
        serviceAccount: { clientId: account.clientId },
        sink: { file: account.file },
      });
      const sink = account.file;
      const running = fleet;

      /** After a kill: a clean worker finishes the run; the sink must then authenticate. */
      const recoverAndCheck = async (
        runId: string,
        label: string,
        tally: Tally,
        before: string,
        armRecovery: string | undefined,
        standby: Promise<PawProcess> | undefined,
      ): Promise<PawProcess> => {
        if (armRecovery !== undefined) {
          // The recovering worker dies too, if its recovery gets that far (it rotates again
          // only when the sink's secret is dead).
          const recovering = await running.start(WORKER_ARGS, { PAW_CRASH_AT: armRecovery });
          const done = await Promise.race([
            recovering.exited.then(() => 'died' as const),
            running.waitForRun(runId).then(
              () => 'finished' as const,
              () => 'finished' as const, // the clean worker below waits again, and says why
            ),
          ]);
          if (done === 'died') tally.recoveryKills++;
          else await recovering.stop('SIGKILL');
        }
        const clean = await (standby ?? running.start(WORKER_ARGS));
        const run = await running.waitForRun(runId);
        const problems: string[] = [];
        if (run.status !== 'succeeded') problems.push(`run ${run.status}`);
        if (!(await authenticates(bed.sim, sink))) problems.push('the sink does not authenticate');
        if ((await secretIn(sink)) === before) problems.push('the secret did not change');
        const journalLeft = await stat(journalPathOf(sink)).then(
          () => true,
          () => false,
        );
        if (journalLeft) problems.push('a journal was left');
        if (problems.length === 0) tally.authenticated++;
        else tally.failures.push(`${label}: ${problems.join(', ')}`);
        return clean;
      };

      // A clean rotation first: how long one takes, to spread the random kills over.
      let worker = await fleet.start(WORKER_ARGS);
      const baselineRun = await fleet.fire(definition);
      const baseline = await fleet.waitForRun(baselineRun);
      if (baseline.status !== 'succeeded' || !(await authenticates(bed.sim, sink))) {
        return {
          passed: false,
          verdict: `the un-killed rotation did not work (run ${baseline.status})`,
        };
      }
      // From the fire to the run's end, as the run records them (not rounded up by polling).
      const rotationMs = Date.parse(baseline.finishedAt ?? '') - Date.parse(baseline.createdAt);
      if (!(rotationMs > 0)) throw new Error('the un-killed run recorded no duration');
      context.progress(`an un-killed rotation takes ${rotationMs.toFixed(0)} ms from its fire`);
      let killWindowMs = rotationMs;

      const tally: Tally = {
        iterations: 0,
        crashPointKills: 0,
        recoveryKills: 0,
        randomKills: 0,
        randomKillsMidRotation: 0,
        authenticated: 0,
        failures: [],
      };
      const started = performance.now();
      let slowest = { seconds: 0, label: '' };
      for (let i = 1; i <= iterations; i++) {
        const iterationStarted = performance.now();
        const before = await secretIn(sink);
        let label: string;
        let runId: string;
        let armRecovery: string | undefined;
        let standby: Promise<PawProcess> | undefined;
        if (i % 2 === 1) {
          // A crash point of the protocol: the worker kills itself there.
          const point = random.pick(ROTATION_POINTS);
          // Only a rotation killed between the platform call and the sink write leaves a sink
          // whose recovery rotates again, and so reaches the recovery's crash points.
          armRecovery =
            point === 'rotate.after-platform-call' && random.next() < 0.7
              ? random.pick(RECOVERY_POINTS)
              : undefined;
          label = `#${i} ${point}${armRecovery === undefined ? '' : ` then ${armRecovery}`}`;
          // Nothing is queued: the armed worker can start while the clean one stops.
          const [, armed] = await Promise.all([
            worker.stop(),
            fleet.start(WORKER_ARGS, { PAW_CRASH_AT: point }),
          ]);
          worker = armed;
          runId = await fleet.fire(definition);
          if (armRecovery === undefined) {
            // The clean worker that finishes the run starts once the armed one has the job (so
            // it cannot take the job first), while the armed one is still on its way to dying.
            const firedRun = runId;
            standby = untilTaken(fleet, firedRun, armed).then(() => running.start(WORKER_ARGS));
          }
          const died = await exitsWithin(worker, ARMED_DEATH_TIMEOUT_MS);
          if (!died) {
            tally.failures.push(`${label}: the worker never reached its crash point`);
            await worker.stop('SIGKILL');
          } else tally.crashPointKills++;
        } else {
          // A SIGKILL at a random moment of a window as long as a rotation, which adapts: the
          // first rotation is the slowest (cold connections), and the machine's load varies.
          const delayMs = random.between(0, killWindowMs);
          label = `#${i} SIGKILL at ${delayMs.toFixed(0)} ms`;
          runId = await fleet.fire(definition);
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          const status = (await fleet.outcomes.runs.get(runId))?.status;
          await worker.stop('SIGKILL');
          tally.randomKills++;
          if (status === 'running') tally.randomKillsMidRotation++;
          // Killed after the end: a shorter window next time; before the start: a longer one.
          if (status === 'succeeded') killWindowMs *= 0.8;
          if (status === 'queued') killWindowMs *= 1.25;
          label += ` (run ${status ?? 'unknown'})`;
        }
        worker = await recoverAndCheck(runId, label, tally, before, armRecovery, standby);
        tally.iterations++;
        const seconds = (performance.now() - iterationStarted) / 1000;
        if (seconds > slowest.seconds) slowest = { seconds, label };
        if (i % 10 === 0 || i === iterations || context.quick) {
          context.progress(
            `${i}/${iterations}: ${tally.authenticated} sinks authenticated, ` +
              `${tally.failures.length} failures (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
        }
      }
      if (worker.running) await worker.stop();
      context.progress(`slowest iteration: ${slowest.label}, ${slowest.seconds.toFixed(1)} s`);

      const clientSecretsIssued = bed.sim.issuedSecrets().clientSecrets.length;
      const figures = {
        iterations: tally.iterations,
        crashPointKills: tally.crashPointKills,
        recoveryKills: tally.recoveryKills,
        randomKills: tally.randomKills,
        randomKillsMidRotation: tally.randomKillsMidRotation,
        lastKillWindowMs: Math.round(killWindowMs),
        slowestIterationSeconds: Number(slowest.seconds.toFixed(1)),
        sinksAuthenticated: tally.authenticated,
        failures: tally.failures.length,
        clientSecretsIssued,
        seed: random.seed,
        loadAverage1m: Number(loadavg()[0]?.toFixed(2)),
      };
      const passed = tally.failures.length === 0 && tally.authenticated === iterations;
      return {
        passed,
        verdict:
          `${tally.authenticated}/${iterations} kills left a sink that authenticates ` +
          `(${tally.crashPointKills} at crash points, ${tally.recoveryKills} recoveries killed, ` +
          `${tally.randomKills} random SIGKILLs, ${tally.randomKillsMidRotation} while running), ` +
          `seed ${random.seed}` +
          (passed ? '' : `; failures: ${tally.failures.slice(0, 3).join('; ')}`),
        figures,
      };
    } finally {
      await fleet?.stop().catch(() => undefined);
      await bed.stop();
    }
  },
};

/** Whether `paw` exits within `timeoutMs` (the timer is cleared, so it never holds the runner). */
async function exitsWithin(paw: PawProcess, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([paw.exited.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the run is no longer queued (a worker took it) or `paw` has exited. */
async function untilTaken(fleet: PawFleet, runId: string, paw: PawProcess): Promise<void> {
  await eventually(
    `run ${runId} to be taken`,
    async () => !paw.running || (await fleet.outcomes.runs.get(runId))?.status !== 'queued',
    { timeoutMs: Infinity, intervalMs: 20 },
  );
}
