import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';
import { PawProcess } from '../test/testkit/paw-process.js';
import { startSimulatorKit } from '../test/testkit/simulator-kit.js';

/**
 * What paw costs between nights: three `paw start` processes (scheduler, workers and the ops
 * server each, as three replicas run) with the repository's jobs/ definitions, none due, against
 * a private redis-server and the simulator, with paw's default settings. After a settling
 * period, each process's CPU (utime + stime from /proc/<pid>/stat) is read over the window: the
 * figure is milliseconds of CPU per second of wall time. Linux only (/proc).
 *
 * Usage: npm run bench -- idle-cpu [--seconds N] [--settle N] [--set PAW_X=value ...]
 *   (60 s and 20 s unless given; --set gives the processes a setting, to find what spins)
 * Goal (issue 35): ≤ 5 ms of CPU per second for each process.
 */
export async function run(args: string[]): Promise<void> {
  const seconds = numberAfter(args, '--seconds', 60);
  const settle = numberAfter(args, '--settle', 20);
  const settings = Object.fromEntries(
    args.flatMap((arg, index) => {
      if (args[index - 1] !== '--set') return [];
      const [name = '', ...value] = arg.split('=');
      return name.startsWith('PAW_') ? [[name, value.join('=')]] : [];
    }),
  );
  const root = fileURLToPath(new URL('../', import.meta.url));
  const redis = await startPrivateRedisServer();
  const kit = await startSimulatorKit({}, 'idle');
  const processes: PawProcess[] = [];
  try {
    for (let index = 0; index < 3; index++) {
      processes.push(
        new PawProcess(['start', '--jobs', `${root}jobs`], {
          cwd: kit.dir,
          env: {
            PAW_REDIS_URL: redis.url,
            PAW_CREDENTIALS_FILE: kit.credentialsFile,
            PAW_HTTP_PORT: '0',
            PAW_LOG_LEVEL: 'warn',
            ...settings,
          },
        }),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, settle * 1000));
    for (const paw of processes) {
      if (paw.child.exitCode !== null) throw new Error(`paw start exited: ${paw.stderr}`);
    }
    const before = processes.map((paw) => cpuMs(paw.child.pid ?? 0));
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const elapsed = (performance.now() - started) / 1000;
    const after = processes.map((paw) => cpuMs(paw.child.pid ?? 0));
    const perSecond = after.map((ms, index) => (ms - (before[index] ?? 0)) / elapsed);
    process.stdout.write(
      `three paw start processes, idle (no fire due), ${seconds} s after ${settle} s of settling` +
        `${Object.keys(settings).length === 0 ? '' : ` (${JSON.stringify(settings)})`}: ` +
        `${perSecond.map((ms) => ms.toFixed(1)).join(', ')} ms of CPU per second ` +
        `(load average ${loadavg()
          .map((load) => load.toFixed(2))
          .join(' ')})\n`,
    );
  } finally {
    await Promise.all(processes.map((paw) => paw.stop()));
    await kit.close();
    await redis.stop();
  }
}

/** A process's CPU so far (user + system), in ms, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name (which may hold spaces) start after its closing ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

function numberAfter(args: readonly string[], flag: string, otherwise: number): number {
  const at = args.indexOf(flag);
  if (at < 0) return otherwise;
  const value = Number(args[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag} takes a number of seconds`);
  return value;
}
