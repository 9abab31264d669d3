import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PawProcess } from '../../testkit/paw-process.js';

describe('paw sim', () => {
  let directory: string;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'paw-sim-'));
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  it('prints its base URL, writes the credentials file (0600) and stops cleanly on SIGTERM', async () => {
    const credentials = join(directory, 'sa.json');
    const running = new PawProcess(
      ['sim', '--port', '0', '--seed', '7', '--workloads', '20', '--credentials-out', credentials],
      { cwd: directory },
    );
    const [, baseUrl] = await running.waitForStdout(
      /listening on (http:\/\/127\.0\.0\.1:\d+)\n[\s\S]*Ctrl-C/,
      45_000,
    );
    expect((await stat(credentials)).mode & 0o777).toBe(0o600);
    const file = JSON.parse(await readFile(credentials, 'utf8')) as Record<string, string>;
    expect(Object.keys(file).sort()).toEqual([
      'access_token_uri',
      'client_id',
      'client_secret',
      'name',
    ]);
    expect(file['access_token_uri']).toBe(`${baseUrl ?? ''}/api/client_token`);
    // The secret is in the file, never on the terminal.
    expect(running.stdout).not.toContain(file['client_secret']);
    expect(running.stderr).not.toContain(file['client_secret']);

    const token = await request(file['access_token_uri'] ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: file['client_id'] ?? '',
        client_secret: file['client_secret'] ?? '',
        grant_type: 'client_credentials',
      }).toString(),
    });
    expect(token.statusCode).toBe(200);
    await token.body.dump();

    running.child.kill('SIGTERM');
    expect(await running.closed).toBe(0);
    await expect(request(`${baseUrl ?? ''}/_sim/stats`)).rejects.toThrow();
  });

  it('takes a --config file, --faults and flags, and prints the fixtures with --json', async () => {
    const config = join(directory, 'sim.yaml');
    await writeFile(
      config,
      'seed: 3\nworkloads: 15\ntimeScale: 60\nrateLimit:\n  requestsPerSecond: 7\n',
    );
    const faults = join(directory, 'faults.yaml');
    await writeFile(
      faults,
      'operations:\n  getWorkload:\n    errorRate: 0.25\n    errorStatuses: [503]\n',
    );
    const running = new PawProcess(
      ['sim', '--config', config, '--faults', faults, '--port', '0', '--workloads', '12', '--json'],
      { cwd: directory },
    );
    await running.waitForStdout(/\n/, 45_000);
    const fixtures = JSON.parse(running.stdout) as {
      baseUrl: string;
      seed: number;
      timeScale: number;
      workloads: { count: number };
    };
    expect(fixtures).toMatchObject({ seed: 3, timeScale: 60, workloads: { count: 12 } });
    const rate = await request(`${fixtures.baseUrl}/_sim/rate-limit`);
    expect(await rate.body.json()).toEqual({ requestsPerSecond: 7, burst: 7 });
    const configured = await request(`${fixtures.baseUrl}/_sim/faults`);
    expect(await configured.body.json()).toEqual({
      operations: {
        getWorkload: {
          errorRate: 0.25,
          errorStatuses: [503],
          resetRate: 0,
          hangRate: 0,
          malformedRate: 0,
          tooManyRequestsRate: 0,
        },
      },
    });
    running.child.kill('SIGINT');
    expect(await running.closed).toBe(0);
  });

  it('exits 2 with a message naming the file and line, or the flag, for bad options', async () => {
    const config = join(directory, 'bad.yaml');
    await writeFile(config, 'seed: 3\nworkloads: many\n');
    const badConfig = new PawProcess(['sim', '--config', config, '--port', '0'], {
      cwd: directory,
    });
    expect(await badConfig.closed).toBe(2);
    expect(badConfig.stderr).toContain(`${config}:2:12`);
    expect(badConfig.stderr).toContain('workloads');

    const badFlag = new PawProcess(['sim', '--port', '0', '--clusters', '2'], { cwd: directory });
    expect(await badFlag.closed).toBe(2);
    expect(badFlag.stderr).toContain('--clusters');

    const missing = new PawProcess(['sim', '--faults', join(directory, 'nope.yaml')], {
      cwd: directory,
    });
    expect(await missing.closed).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });
});
