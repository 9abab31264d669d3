import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { startPrivateRedisServer } from '../src/redis/private-redis-server.js';

/**
 * How long a `paw` command takes to start and answer, hyperfine-style: each command run `--runs`
 * times (after two warm-up runs) as `node bin/paw.js …`, as a user runs it, reporting the mean,
 * standard deviation, minimum and median wall time, and the CPU (user + system) the command
 * used, which a busy machine changes far less than the wall time. `paw runs` reads a private
 * redis-server (empty: what it costs is start-up, a connection and one listing).
 *
 * Usage: npm run bench -- cli-start [--runs N]   (N: 10 unless given)
 * Goals (issue 35, on an idle 2-core machine): `paw --help` ≤ 0.3 s, `paw runs` ≤ 1 s.
 */
export async function run(args: string[]): Promise<void> {
  const at = args.indexOf('--runs');
  const runs = at < 0 ? 10 : Number(args[at + 1]);
  if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number ≥ 1');
  const root = fileURLToPath(new URL('../', import.meta.url));
  const redis = await startPrivateRedisServer();
  try {
    const env = { ...process.env, PAW_REDIS_URL: redis.url, PAW_LOG_LEVEL: 'warn' };
    process.stdout.write(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
    for (const command of [['--help'], ['runs']]) {
      const samples = Array.from({ length: runs + 2 }, () => timed(root, command, env)).slice(2);
      const wall = samples.map((sample) => sample.wallMs).sort((a, b) => a - b);
      const cpu = samples.map((sample) => sample.cpuMs);
      const mean = wall.reduce((sum, ms) => sum + ms, 0) / wall.length;
      const sd = Math.sqrt(wall.reduce((sum, ms) => sum + (ms - mean) ** 2, 0) / wall.length);
      process.stdout.write(
        `node bin/paw.js ${command.join(' ')}: wall ${(mean / 1000).toFixed(3)} s ± ` +
          `${(sd / 1000).toFixed(3)} (min ${((wall[0] ?? 0) / 1000).toFixed(3)}, median ` +
          `${((wall[Math.floor(wall.length / 2)] ?? 0) / 1000).toFixed(3)}), CPU ` +
          `${(cpu.reduce((sum, ms) => sum + ms, 0) / cpu.length / 1000).toFixed(3)} s, ${runs} runs\n`,
      );
    }
    process.stdout.write(
      `load average after: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}\n`,
    );
  } finally {
    await redis.stop();
  }
}

/** One run: its wall time, and its CPU time (bash's `times`: the children's user and system). */
function timed(
  root: string,
  command: readonly string[],
  env: NodeJS.ProcessEnv,
): { wallMs: number; cpuMs: number } {
  const started = performance.now();
  const result = spawnSync(
    'bash',
    ['-c', 'node bin/paw.js "$@" > /dev/null; status=$?; times; exit $status', '_', ...command],
    { cwd: root, env, encoding: 'utf8' },
  );
  const wallMs = performance.now() - started;
  if (result.status !== 0) {
    throw new Error(
      `node bin/paw.js ${command.join(' ')} exited ${result.status}: ${result.stderr}`,
    );
  }
  // `times` prints the shell's own times, then its children's: "0m0.180s 0m0.020s".
  const children = result.stdout.trim().split('\n').at(-1) ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map(
    (match) => Number(match[1]) * 60 + Number(match[2]),
  );
  return { wallMs, cpuMs: seconds.reduce((sum, s) => sum + s, 0) * 1000 };
}
