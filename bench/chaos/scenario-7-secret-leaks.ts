import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { findFreePort } from '../../src/shared/free-port.js';
import { hashPassword } from '../../src/ops/auth/password-hash.js';
import { OutcomeQueries } from '../../src/outcomes/outcome-queries.js';
import { createTestAccount } from '../../test/testkit/service-accounts.js';
import type { Redis } from 'ioredis';
import type { PawProcess } from '../../test/testkit/paw-process.js';
import { issuedSecrets } from '../../test/testkit/secret-scan.js';
import { eventually } from '../../test/testkit/eventually.js';
import type { ChaosContext, ChaosScenario, ChaosVerdict } from './chaos-scenario.js';
import { startKillBed } from './support/kill-bed.js';
import type { PawFleet } from '../../test/testkit/paw-fleet.js';
import { chaosFleet } from './support/chaos-fleet.js';
import {
  everyRedisKeyAndValue,
  findSecrets,
  uncompressedRedisDump,
} from './support/leak-search.js';

/**
 * Chaos 7: every flow at debug log level, then a search for every secret and token the platform
 * issued in everything paw wrote. `paw start` runs snapshots, maintenance windows, a rotation of
 * another account and of paw's own secret, all every few seconds, with 20-second tokens (renewed
 * in the full form); workers armed with crash points die mid-snapshot, mid-window or
 * mid-rotation so recoveries and takeovers log too; CLI commands read runs, outcomes and the
 * platform, rotate a third account and open a cluster session. Then every process's standard
 * output and error, every Redis key and value, and the Redis dump file are searched for every
 * secret in `/_sim/issued-secrets` (and each token's signature alone): there must be none.
 *
 * Redis asks for a password, and the operator changes it mid-run (every client is dropped and
 * reconnects with a password that no longer works, until the old one is allowed again, as an
 * ACL rotation with two passwords does): paw's Redis errors are logged, so both passwords are
 * searched for too, with the ops server's bearer token, a basic-auth user's password, a trusted
 * proxy's secret and the wrong credentials sent to it.
 */

/** Short tokens: paw renews them during the run, and logs around renewals get searched too. */
const TOKEN_LIFETIME_SECONDS = 20;

/** Crash points for the armed workers, one list per worker: each dies at the first it reaches. */
const ARMED_WORKERS = [
  'rotate.after-platform-call,snapshot.after-trigger,window.after-pause',
  'rotate.after-sink-write,snapshot.after-poll,window.after-resume',
] as const;

export const scenario: ChaosScenario = {
  id: 7,
  slug: 'secret-leaks',
  title: 'every flow at debug log level: no issued secret or token in any log or in Redis',
  async run(context: ChaosContext): Promise<ChaosVerdict> {
    const activityMs = context.quick ? 16_000 : 90_000;
    const redisPassword = `redis-old-${randomBytes(12).toString('hex')}`;
    const rotatedRedisPassword = `redis-new-${randomBytes(12).toString('hex')}`;
    const opsToken = `ops-token-${randomBytes(16).toString('hex')}`;
    const opsPassword = `ops-password-${randomBytes(12).toString('hex')}`;
    const wrongToken = `wrong-token-${randomBytes(12).toString('hex')}`;
    const wrongPassword = `wrong-password-${randomBytes(12).toString('hex')}`;
    const proxySecret = `proxy-secret-${randomBytes(16).toString('hex')}`;
    const wrongProxySecret = `wrong-proxy-secret-${randomBytes(12).toString('hex')}`;
    const bed = await startKillBed(
      'secret-leaks',
      {
        tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
        // Snapshot jobs of a few seconds that always succeed: every flow ends within the run.
        jobs: {
          durationSeconds: { median: 2, sigma: 0.3, min: 1 },
          queuedSeconds: 0.5,
          failureRate: 0,
          cancelRate: 0,
        },
      },
      redisPassword,
    );
    let fleet: PawFleet | undefined;
    try {
      const own = await createTestAccount(bed.admin, bed.sim, bed.dir, 'paw-itself');
      const other = await createTestAccount(bed.admin, bed.sim, bed.dir, 'backup-app');
      const third = await createTestAccount(bed.admin, bed.sim, bed.dir, 'cli-rotated');
      const domain = await bed.admin.rest.slaDomains.create({
        name: `chaos-leaks-${Math.random().toString(36).slice(2, 8)}`,
        objectTypes: ['VSPHERE_VM'],
        frequency: { unit: 'DAILY', interval: 1 },
        retention: { unit: 'DAYS', duration: 7 },
      });
      const connected = bed.sim.clusters.find((c) => c.connectionState === 'Connected');
      const cluster = connected?.id ?? '';
      const jobs = join(bed.dir, 'jobs');
      await mkdir(jobs, { recursive: true });
      const definitions = [
        {
          id: 'snapshots',
          kind: 'snapshot',
          schedule: { cron: '*/5 * * * * *', allowSubMinute: true },
          targets: { types: ['VSPHERE_VM'] },
          retention: { slaDomainName: 'Gold' },
        },
        {
          id: 'window',
          kind: 'sla-window',
          schedule: { cron: '*/4 * * * * *', allowSubMinute: true, duration: '2s' },
          slaDomains: { ids: [domain.id], clusterIds: [cluster] },
        },
        {
          id: 'rotate-backup-app',
          kind: 'rotate-secret',
          schedule: { cron: '*/6 * * * * *', allowSubMinute: true },
          serviceAccount: { clientId: other.clientId },
          sink: { file: other.file },
        },
        {
          id: 'rotate-paw-itself',
          kind: 'rotate-secret',
          schedule: { cron: '*/10 * * * * *', allowSubMinute: true },
          serviceAccount: { clientId: own.clientId },
          sink: { file: own.file },
        },
      ];
      // JSON is YAML: one definition per file.
      for (const definition of definitions) {
        await writeFile(join(jobs, `${definition.id}.yaml`), `${JSON.stringify(definition)}\n`);
      }

      const tokenFile = join(bed.dir, 'ops-tokens');
      const usersFile = join(bed.dir, 'ops-users');
      const proxySecretFile = join(bed.dir, 'ops-proxy-secret');
      await writeFile(tokenFile, `chaos:${opsToken}\n`, { mode: 0o600 });
      await writeFile(proxySecretFile, `nginx:${proxySecret}\n`, { mode: 0o600 });
      await writeFile(usersFile, `operator:${await hashPassword(opsPassword)}\n`, { mode: 0o600 });
      const opsPort = await findFreePort();

      fleet = await chaosFleet(bed.redis, {
        redisUrl: bed.redisUrl,
        dir: bed.dir,
        credentialsFile: own.file,
        label: 'secret-leaks',
        env: {
          PAW_LOG_LEVEL: 'debug',
          PAW_REDIS_PASSWORD: redisPassword,
          PAW_ROTATION_MIN_RECOVERY_TOKEN_SECONDS: String(TOKEN_LIFETIME_SECONDS / 2),
          PAW_SNAPSHOT_POLL_MIN_MS: '500',
          PAW_SNAPSHOT_POLL_MAX_MS: '1000',
          // A worker killed after recording its intents and before sending their triggers
          // leaves items that wait this long for the platform to show a trigger before sending
          // one again. The simulator shows one at once; the default (30 s, for the real
          // platform) outlasted the quick form's 16 s, and no snapshot run ended in it.
          PAW_PLATFORM_ACTIVITY_DELAY_MS: '2000',
        },
      });
      const running = fleet;
      context.progress(`paw start and a crash-armed worker, ${activityMs / 1000} s of every flow`);
      const armed: PawProcess[] = [];
      await Promise.all([
        running.start(['start', '--jobs', jobs], {
          PAW_HTTP_PORT: String(opsPort),
          PAW_OPS_TOKEN_FILE: tokenFile,
          PAW_OPS_USERS_FILE: usersFile,
          PAW_OPS_PROXY_USER_HEADER: 'X-Forwarded-User',
          PAW_OPS_TRUSTED_PROXIES: '127.0.0.1',
          PAW_OPS_PROXY_SECRET_FILE: proxySecretFile,
        }),
        running.start(['worker'], { PAW_CRASH_AT: ARMED_WORKERS[0] }).then((w) => armed.push(w)),
      ]);
      const activityEnds = Date.now() + activityMs;
      // Once every kind has had a run succeed (so each flow is searched whatever the outage
      // does to the runs in flight), and no earlier than half way.
      const queries = new OutcomeQueries(bed.redis, running.prefix);
      const everyKindSucceeded = async (): Promise<boolean> => {
        const kinds = new Set(
          (await queries.listRuns({}))
            .filter((run) => run.status === 'succeeded')
            .map((run) => run.kind),
        );
        return kinds.size === 3;
      };
      const passwordChange = changeRedisPasswordMidRun(
        bed.redis,
        redisPassword,
        rotatedRedisPassword,
        activityMs / 2,
        everyKindSucceeded,
        activityEnds - 4_000,
      );
      const opsAnswers = await askTheOpsServer(`http://127.0.0.1:${opsPort}`, [
        { authorization: `Bearer ${opsToken}` },
        { authorization: basic('operator', opsPassword) },
        { authorization: `Bearer ${wrongToken}` },
        { authorization: basic('operator', wrongPassword) },
        { 'x-forwarded-user': 'proxied-operator', 'x-paw-proxy-secret': proxySecret },
        { 'x-forwarded-user': 'forger', 'x-paw-proxy-secret': wrongProxySecret },
      ]);
      for (const crashAt of ARMED_WORKERS.slice(1)) {
        const first = armed.at(-1);
        if (first === undefined) break;
        await Promise.race([first.exited, sleep(Math.max(0, activityEnds - Date.now()))]);
        if (first.running) break;
        armed.push(await startThroughPasswordChange(running, crashAt, passwordChange));
      }
      await sleep(Math.max(0, activityEnds - Date.now()));
      await passwordChange;
      // A loaded machine can take a crashed window's takeover past the flows' time: every kind
      // gets up to a minute more to have a run succeed, so each flow is searched (a kind that
      // never gets one still fails the scenario, below).
      await eventually('a succeeded run of every kind', everyKindSucceeded, {
        timeoutMs: 60_000,
        intervalMs: 500,
        otherwise: () => false,
      });
      // Each armed worker dies at the first crash point it reaches (if any flow got it there).
      const armedDeaths = armed.filter((w) => w.child.signalCode === 'SIGKILL').length;

      context.progress('CLI commands at debug level');
      const commands = [
        ['runs', '--limit', '500'],
        ['outcomes', '--limit', '500', '--json'],
        ['sla', 'list', '--verbose'],
        ['clusters', 'list', '--verbose'],
        ['accounts', 'list', '--verbose'],
        ['accounts', 'rotate', third.clientId, '--out', third.file, '--verbose'],
        ['schedules', '--jobs', jobs],
        // A session on a cluster's own API: its token is searched for like every other.
        ['cluster-session', 'create', '--cluster', connected?.baseUrl ?? '', '--verbose'],
      ];
      const exits = await Promise.all(commands.map((args) => running.command(args)));
      const failedCommands = commands.flatMap((args, index) => {
        const code = exits[index]?.code;
        return code === 0 ? [] : [`paw ${args.slice(0, 2).join(' ')} exited ${String(code)}`];
      });
      await running.stop();

      const runs = await queries.listRuns({});
      const succeeded = (kind: string) =>
        runs.filter((run) => run.kind === kind && run.status === 'succeeded').length;
      const perKind = {
        snapshot: succeeded('snapshot'),
        'sla-window': succeeded('sla-window'),
        'rotate-secret': succeeded('rotate-secret'),
      };

      context.progress('searching every log, every Redis key and value and the dump file');
      const opsSecrets = [
        redisPassword,
        rotatedRedisPassword,
        opsToken,
        opsPassword,
        wrongToken,
        wrongPassword,
        basic('operator', opsPassword).slice('Basic '.length),
        basic('operator', wrongPassword).slice('Basic '.length),
        proxySecret,
        wrongProxySecret,
      ];
      const secrets = [...(await issuedSecrets(bed.sim.baseUrl)), ...opsSecrets];
      const redisText = await everyRedisKeyAndValue(bed.redis);
      const dump = await uncompressedRedisDump(bed.redis);
      const places = [
        ...running.processes.map((paw, index) => ({
          name: `process ${index + 1} (${paw.child.spawnargs.slice(2, 4).join(' ')})`,
          text: `${paw.stdout}\n${paw.stderr}`,
        })),
        { name: 'Redis keys and values', text: redisText.text },
        { name: 'Redis dump file', text: dump },
      ];
      const bytes = places.reduce((sum, place) => sum + Buffer.byteLength(place.text, 'latin1'), 0);
      const logBytes = places
        .slice(0, running.processes.length)
        .reduce((sum, place) => sum + Buffer.byteLength(place.text), 0);
      const hits = findSecrets(places, secrets);
      // Controls: the search finds a secret where one is (paw's credentials file), and the logs
      // searched are at debug level (pino level 20), so a clean result means something.
      const control = findSecrets(
        [{ name: 'control', text: await readFile(own.file, 'utf8') }],
        secrets,
      );
      const debugLines = running.processes.reduce(
        (sum, paw) =>
          sum + paw.stderr.split('\n').filter((line) => line.includes('"level":20')).length,
        0,
      );

      const wrongPassLines = running.processes.reduce(
        (sum, paw) => sum + paw.stderr.split('\n').filter((line) => /WRONGPASS/.test(line)).length,
        0,
      );
      const problems: string[] = [...failedCommands];
      if (wrongPassLines === 0) {
        problems.push('no process logged WRONGPASS: the Redis password change had no effect');
      }
      const expectedAnswers = '200,200,401,401,200,401';
      if (opsAnswers.join(',') !== expectedAnswers) {
        problems.push(`the ops server answered ${opsAnswers.join(',')}, not ${expectedAnswers}`);
      }
      if (control.length === 0) problems.push('the search missed the secret in a credentials file');
      if (debugLines === 0) problems.push('no debug line was logged: the log level did not apply');
      for (const [kind, count] of Object.entries(perKind)) {
        if (count > 0) continue;
        // What became of that kind's runs, so a failure says where to look.
        const ofKind = runs
          .filter((run) => run.kind === kind)
          .map(
            (run) =>
              `${run.runId} ${run.status}` +
              (run.errorMessage === undefined && run.reason === undefined
                ? ''
                : ` (${run.errorMessage ?? run.reason ?? ''})`) +
              ` ${JSON.stringify(run.counts)}`,
          );
        problems.push(
          `no ${kind} run succeeded, so its flow was not searched; its runs: ${ofKind.join('; ') || 'none'}`,
        );
      }
      if (hits.length > 0) {
        problems.push(
          `${hits.length} hit(s): ${hits
            .slice(0, 5)
            .map((hit) => `${hit.secret} in ${hit.place}`)
            .join(', ')}`,
        );
      }
      const figures = {
        secretsSearched: secrets.length,
        bytesSearched: bytes,
        logBytes,
        debugLines,
        redisKeys: redisText.keys,
        dumpBytes: dump.length,
        processes: running.processes.length,
        armedWorkerDeaths: armedDeaths,
        snapshotRuns: perKind.snapshot,
        windowRuns: perKind['sla-window'],
        rotationRuns: perKind['rotate-secret'],
        hits: hits.length,
        redisWrongPassLines: wrongPassLines,
        loadAverage1m: Number(loadavg()[0]?.toFixed(2)),
      };
      return {
        passed: problems.length === 0,
        verdict:
          `${secrets.length} secrets searched in ${(bytes / 1e6).toFixed(1)} MB ` +
          `(${running.processes.length} processes' output, ${debugLines} debug lines, ` +
          `${redisText.keys} Redis keys, ` +
          `the dump file): hits=${hits.length}; runs succeeded: ${perKind.snapshot} snapshot, ` +
          `${perKind['sla-window']} window, ${perKind['rotate-secret']} rotation; ` +
          `${armedDeaths} workers killed at crash points; Redis password changed mid-run ` +
          `(${wrongPassLines} WRONGPASS log lines), ops server asked with 3 good and 3 bad credentials` +
          (problems.length === 0 ? '' : `; PROBLEMS: ${problems.join('; ')}`),
        figures,
      };
    } finally {
      await fleet?.stop().catch(() => undefined);
      await bed.stop();
    }
  },
};

/**
 * The operator changes the Redis password after `afterMs`, once `ready` says so (or at
 * `latestAt`, epoch ms): every paw connection is dropped and
 * reconnects with the old password, which fails (WRONGPASS) for a few seconds, until the old one
 * is allowed beside the new (an ACL user with two passwords, the rolling way).
 */
async function changeRedisPasswordMidRun(
  redis: Redis,
  oldPassword: string,
  newPassword: string,
  afterMs: number,
  ready: () => Promise<boolean>,
  latestAt: number,
): Promise<void> {
  await sleep(afterMs);
  await eventually('the run to be ready for the password change', ready, {
    timeoutMs: Math.max(0, latestAt - Date.now()),
    intervalMs: 250,
    otherwise: () => false,
  });
  await redis.call('ACL', 'SETUSER', 'default', 'resetpass', `>${newPassword}`);
  // SKIPME defaults to yes: the scenario's own connection stays.
  await redis.call('CLIENT', 'KILL', 'TYPE', 'normal');
  await sleep(3_000);
  await redis.call('ACL', 'SETUSER', 'default', `>${oldPassword}`);
}

/**
 * Starts a worker armed with `crashAt`. A worker started while only the new Redis password
 * works refuses to start (paw exits when it cannot reach Redis at start-up, for its supervisor
 * to restart it): as a supervisor would, it is started again once the old password works again.
 */
async function startThroughPasswordChange(
  fleet: PawFleet,
  crashAt: string,
  passwordChange: Promise<void>,
): Promise<PawProcess> {
  try {
    return await fleet.start(['worker'], { PAW_CRASH_AT: crashAt });
  } catch (error) {
    if (!/WRONGPASS/.test(String(error))) throw error;
    await passwordChange;
    return fleet.start(['worker'], { PAW_CRASH_AT: crashAt });
  }
}

/** GETs /api/dashboard with each set of headers; returns the status codes. */
async function askTheOpsServer(
  base: string,
  headers: readonly Record<string, string>[],
): Promise<number[]> {
  const statuses: number[] = [];
  for (const each of headers) {
    const response = await fetch(`${base}/api/dashboard`, { headers: each });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}
