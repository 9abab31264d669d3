import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runPaw } from '../testkit/paw-process.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string): string =>
  readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

interface ComposeService {
  image?: string;
  command?: string[];
  profiles?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  network_mode?: string;
  deploy?: { replicas?: number };
  secrets?: string[];
}

/** No Docker engine runs here: these check what the image and compose files rely on. */
describe('Dockerfile and docker-compose.yml', () => {
  // A sibling of dist/ (paw finds package.json one level above its compiled folder).
  const outDir = `.dist-test-${randomUUID().slice(0, 8)}`;
  const main = `${outDir}/cli/main.js`;
  // The build the image runs (its build stage's `npm run build`): tsc and the Lua scripts.
  beforeAll(async () => {
    await run(process.execPath, ['bin/build.mjs', '--outDir', outDir], { cwd: ROOT });
  }, 120_000);
  afterAll(async () => {
    await rm(`${ROOT}${outDir}`, { recursive: true, force: true });
  });

  it('the build the image runs compiles to a runnable dist/ that reads package.json', async () => {
    const version = await run(process.execPath, [main, '--version'], { cwd: ROOT });
    expect(version.stdout.trim()).toBe(
      (JSON.parse(read('package.json')) as { version: string }).version,
    );
    const help = await run(process.execPath, [main, '--help'], { cwd: ROOT });
    expect(help.stdout).toMatch(/scheduler/);
    // The definitions compose's sim profile mounts are valid.
    const validate = await run(process.execPath, [main, 'validate', '--jobs', 'deploy/sim'], {
      cwd: ROOT,
    });
    expect(validate.stdout).toContain('3 definitions valid');
  }, 120_000);

  it('the compiled paw runs a snapshot run to its end, with the Redis scripts the build copied', async () => {
    // `paw demo` (shortened) runs the scheduler, the workers and the simulator: every run it
    // fires goes through the outcome records' and the lanes' scripts.
    const env: NodeJS.ProcessEnv = { PAW_HTTP_PORT: '0', PAW_LOG_LEVEL: 'info' };
    for (const [name, value] of Object.entries(process.env)) {
      if (!name.startsWith('PAW_')) env[name] = value;
    }
    const demo = await run(
      process.execPath,
      [`${ROOT}${main}`, 'demo', '--for', '15s', '--workloads', '200', '--json'],
      { cwd: tmpdir(), env, maxBuffer: 64 * 1024 * 1024 },
    );
    const report = JSON.parse(demo.stdout) as {
      ok: boolean;
      runs: { run: { kind: string; status: string }; items: unknown[] }[];
    };
    expect(report.ok).toBe(true);
    const snapshot = report.runs.find(({ run }) => run.kind === 'snapshot');
    expect(snapshot?.items.length).toBeGreaterThan(100);
  }, 180_000);

  it('the Dockerfile builds in stages, runs dist/ as a non-root user on Node 22 and checks /healthz', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-/m);
    expect(dockerfile).toMatch(/^ARG RUNTIME_IMAGE=gcr\.io\/distroless\/cc-debian12$/m);
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(4);
    // The runtime is a base without shell or npm: it runs nothing while building, and takes
    // only the node binary from the Node image.
    const runtime = dockerfile.slice(dockerfile.search(/^FROM \$\{RUNTIME_IMAGE\} AS runtime$/m));
    expect(runtime).toMatch(/^FROM /);
    expect(runtime).not.toMatch(/^RUN /m);
    expect(runtime).toContain('COPY --from=build /usr/local/bin/node /usr/local/bin/node');
    expect(runtime).toMatch(/^COPY --from=accounts --chown=node:node \S+ \/var\/lib\/paw$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [\s\S]*\/healthz/m);
    expect(dockerfile).toContain('ENTRYPOINT ["node", "dist/cli/main.js"]');
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(dockerfile).toMatch(/PAW_HTTP_HOST=0\.0\.0\.0/);
    // Everything the build copies exists.
    for (const match of dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)) {
      for (const file of (match[1] ?? '').split(' '))
        expect(existsSync(`${ROOT}${file}`), file).toBe(true);
    }
  });

  it('compose runs Redis with AOF and noeviction, a scheduler, scalable workers, a secrets volume, and the simulator under a profile', () => {
    const compose = parse(read('docker-compose.yml')) as {
      services: Record<string, ComposeService>;
      volumes: Record<string, unknown>;
    };
    const { redis, scheduler, worker, sim } = compose.services;
    const local = compose.services['paw-local'];
    expect(redis?.profiles).toBeUndefined();
    expect(redis?.command?.join(' ')).toMatch(/--appendonly yes/);
    expect(redis?.command?.join(' ')).toMatch(/--maxmemory-policy noeviction/);
    expect(scheduler?.command).toEqual(['scheduler']);
    expect(worker?.command).toEqual(['worker']);
    expect(worker?.deploy?.replicas).toBeGreaterThan(1);
    expect(worker?.volumes).toContain('rotated-secrets:/var/lib/paw/secrets');
    expect(compose.volumes).toHaveProperty('rotated-secrets');
    expect(sim?.profiles).toEqual(['sim']);
    expect(local?.profiles).toEqual(['sim']);
    expect(local?.network_mode).toBe('service:sim');
    expect(local?.command).toEqual(['start', '--jobs', '/app/deploy/sim']);
    // The credentials file the simulator writes is the one paw reads.
    const out = sim?.command?.[(sim.command.indexOf('--credentials-out') ?? -2) + 1];
    expect(local?.environment?.['PAW_CREDENTIALS_FILE']).toBe(out);
    for (const service of [scheduler, worker, local]) {
      expect(service?.environment?.['PAW_REDIS_URL']).toBe('redis://redis:6379');
    }
  });

  it('the image and compose ship the ops server with authentication on', async () => {
    const dockerfile = read('Dockerfile');
    const env = Object.fromEntries(
      [
        ...(/^ENV ([\s\S]*?)\nWORKDIR/m.exec(dockerfile)?.[1] ?? '').matchAll(/(PAW_\w+)=(\S+)/g),
      ].map((match) => [match[1] ?? '', match[2] ?? '']),
    );
    expect(env).toMatchObject({
      PAW_HTTP_HOST: '0.0.0.0',
      PAW_OPS_TOKEN_FILE: '/run/secrets/paw-ops-tokens',
    });
    // The image's settings without the secret mounted: paw refuses to start and says what to do.
    const refused = await runPaw(['scheduler', '--jobs', 'deploy/sim'], {
      env: {
        ...env,
        PAW_OPS_TOKEN_FILE: `/nonexistent/${randomUUID()}`,
        PAW_REDIS_URL: 'redis://127.0.0.1:1',
      },
      cwd: ROOT,
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /PAW_OPS_TOKEN_FILE\): \S+ cannot be read \(ENOENT\); write one per line/,
    );
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, ComposeService>;
      secrets: Record<string, { file: string }>;
    };
    for (const name of ['scheduler', 'worker', 'sim', 'paw-local']) {
      expect(compose.services[name]?.secrets, name).toContain('paw-ops-tokens');
    }
    expect(compose.secrets['paw-ops-tokens']?.file).toBe('./secrets/paw-ops-tokens');
  });
});
