import { tmpdir } from 'node:os';
import { basename, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jobsFolder } from '../../testkit/definitions.js';
import { runPaw } from '../../testkit/paw-process.js';

const repositoryJobs = resolve('jobs');

describe('paw validate (real process)', () => {
  it('exits 0 for the examples in jobs/ and lists them', async () => {
    const result = await runPaw(['validate', '--jobs', repositoryJobs], { env: {}, cwd: tmpdir() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/ok\s+nightly-vms \(snapshot\)/);
    expect(result.stdout).toMatch(/ok\s+saturday-maintenance \(sla-window\)/);
    expect(result.stdout).toMatch(/ok\s+rotate-backup-app \(rotate-secret\)/);
    expect(result.stdout).toMatch(/4 definitions valid/);
  });

  it('exits 2 listing every problem, from PAW_JOBS_DIR, and never starts anything', async () => {
    const dir = await jobsFolder({
      'a.yaml':
        'id: a\nkind: snapshot\nschedule: { cron: "0 1 30 2 *", timezone: Mars/Base }\ntargets: { types: [VSPHERE_VM] }\n',
      'b.yaml':
        'id: a\nkind: sla-window\nschedule: { cron: "0 * * * *", duration: 2h }\nslaDomains: { names: [Gold] }\n',
    });
    const result = await runPaw(['validate'], { env: { PAW_JOBS_DIR: dir }, cwd: tmpdir() });
    expect(result.code).toBe(2);
    const errors = result.stderr.split('\n').filter((line) => line.startsWith('error'));
    expect(errors).toHaveLength(4);
    expect(errors[0]).toMatch(/a\.yaml:1:1: \(definition\): has no retention.*; fix: /);
    expect(errors[1]).toMatch(/a\.yaml:3:\d+: schedule\.cron: .*never fires; fix: /);
    expect(errors[2]).toMatch(
      /a\.yaml:3:\d+: schedule\.timezone: "Mars\/Base" is not a known IANA time zone; fix: /,
    );
    expect(errors[3]).toMatch(/b\.yaml:3:\d+: schedule\.duration: 2h is not shorter .*; fix: /);
    expect(result.stderr).toMatch(/4 problems in .*; nothing was run/);
  });

  it('reports duplicate ids and gives --json for scripts', async () => {
    const definition =
      'id: same\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f" }\nsink: { file: s.json }\n';
    const dir = await jobsFolder({ 'one.yaml': definition, 'two.yml': definition });
    const result = await runPaw(['validate', '--jobs', dir, '--json'], { env: {}, cwd: tmpdir() });
    expect(result.code).toBe(2);
    const output = JSON.parse(result.stdout) as {
      valid: boolean;
      definitions: { id: string; nextFire: string }[];
      problems: { file: string; line: number; path: string; message: string; fix: string }[];
    };
    expect(output.valid).toBe(false);
    expect(output.definitions.map((definition) => definition.id)).toEqual(['same']);
    expect(output.problems).toEqual([
      {
        file: resolve(dir, 'two.yml'),
        line: 1,
        column: 5,
        path: 'id',
        message: expect.stringMatching(
          /"same" is already the id of the definition at .*one\.yaml:1/,
        ) as unknown,
        fix: 'give each definition a unique id',
      },
    ]);
  });

  it('exits 2 with the fix when the folder does not exist', async () => {
    const result = await runPaw(['validate', '--jobs', '/nonexistent/jobs'], {
      env: {},
      cwd: tmpdir(),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /\/nonexistent\/jobs: \(folder\): does not exist; fix: create it, or point PAW_JOBS_DIR/,
    );
  });

  it('exits 2 naming the folder when it holds no definitions (an empty mount, the wrong folder)', async () => {
    for (const files of [{}, { 'notes.yaml': '# nothing yet\n' }, { 'readme.txt': 'hello' }]) {
      const dir = await jobsFolder(files);
      const result = await runPaw(['validate'], { env: { PAW_JOBS_DIR: dir }, cwd: tmpdir() });
      expect(result.code, JSON.stringify(files)).toBe(2);
      // The folder, named as the command shows paths (relative to where it runs).
      expect(result.stderr).toContain(
        `error    ${basename(dir)}: (folder): holds no job definitions (no *.yaml file with one); fix: `,
      );
      expect(result.stderr).toMatch(/1 problem in .*; nothing was run/);
    }
  });

  it('refuses a YAML alias bomb and an oversized file with exit 2, naming each file, and --json gets JSON', async () => {
    // Nine levels of nine aliases each: 9^9 strings if expanded.
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 10; level++) {
      levels.push(
        `l${level}: &l${level} [${Array(9)
          .fill(`*l${level - 1}`)
          .join(', ')}]`,
      );
    }
    const dir = await jobsFolder({
      'bomb.yaml': `${levels.join('\n')}\n`,
      'huge.yaml': `# ${'x'.repeat(5 * 1024 * 1024)}\n`,
    });
    const result = await runPaw(['validate', '--jobs', dir, '--json'], { env: {}, cwd: tmpdir() });
    expect(result.code).toBe(2);
    const output = JSON.parse(result.stdout) as {
      problems: { file: string; message: string }[];
    };
    expect(output.problems).toEqual([
      expect.objectContaining({
        file: resolve(dir, 'bomb.yaml'),
        message: expect.stringMatching(/aliases .* expand to more than 100 copies/) as unknown,
      }),
      expect.objectContaining({
        file: resolve(dir, 'huge.yaml'),
        message: expect.stringMatching(
          /\(5\.0 MiB\) is more than 4 MiB, the most paw reads from a YAML file; split it/,
        ) as unknown,
      }),
    ]);
    const text = await runPaw(['validate', '--jobs', dir], { env: {}, cwd: tmpdir() });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('bomb.yaml');
  });

  it('refuses a cron step out of its field, naming the field and the fix, and warns of a schedule firing every second', async () => {
    const snapshot = (id: string, cron: string) =>
      `id: ${id}\nkind: snapshot\nschedule: { cron: "${cron}" }\ntargets: { types: [VSPHERE_VM] }\nkeepForever: true\n`;
    const dir = await jobsFolder({
      'huge-step.yaml': snapshot('huge-step', '*/99999999999999999999 * * * *'),
      'hour-step.yaml': snapshot('hour-step', '0 */24 * * *'),
    });
    const refused = await runPaw(['validate', '--jobs', dir], { env: {}, cwd: tmpdir() });
    expect(refused.code).toBe(2);
    const errors = refused.stderr.split('\n').filter((line) => line.startsWith('error'));
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(
      /hour-step\.yaml:3:\d+: schedule\.cron: .*the hour field's step 24 is out of range: a step of hours is 1 to 23; fix: /,
    );
    expect(errors[1]).toMatch(
      /huge-step\.yaml:3:\d+: schedule\.cron: .*the minute field's step 99999999999999999999 is out of range: a step of minutes is 1 to 59; fix: .*\*\/15/,
    );

    const everySecond = await jobsFolder({
      'every-second.yaml': snapshot('every-second', '* * * * * *'),
      'every-minute.yaml': snapshot('every-minute', '0 * * * * *'),
    });
    const subMinute = await runPaw(['validate', '--jobs', everySecond], { env: {}, cwd: tmpdir() });
    expect(subMinute.code, subMinute.stderr).toBe(2);
    const subMinuteErrors = subMinute.stderr.split('\n').filter((line) => line.startsWith('error'));
    expect(subMinuteErrors).toHaveLength(1);
    expect(subMinuteErrors[0]).toMatch(
      /every-second\.yaml:3:\d+: schedule\.cron: "\* \* \* \* \* \*" fires every second: .*; fix: .*five fields.*add `allowSubMinute: true` to the schedule/,
    );

    // Said on purpose, it is valid.
    const onPurpose = await jobsFolder({
      'every-ten-seconds.yaml': `id: every-ten-seconds\nkind: snapshot\nschedule: { cron: "*/10 * * * * *", allowSubMinute: true }\ntargets: { types: [VSPHERE_VM] }\nkeepForever: true\n`,
    });
    const accepted = await runPaw(['validate', '--jobs', onPurpose], { env: {}, cwd: tmpdir() });
    expect(accepted.code, accepted.stderr).toBe(0);
  });
});
