import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsFolder } from '../../testkit/definitions.js';
import { testRedisUrl, uniquePrefix } from '../../testkit/redis-connection.js';
import { startCliSimulator, type CliSimulator } from '../cli-simulator.js';
import { runPaw, type PawResult } from '../../testkit/paw-process.js';

/**
 * What an attacker (or a careless paste) puts in text paw later prints: a screen clear, a window
 * title, a bell, a carriage return that overwrites the line, and a newline followed by a fake
 * log record.
 */
const HOSTILE = 'freeze\x1b[2J\x1b]0;pwned\x07\rnow\n{"level":30,"msg":"all good"}';

/** Every control character but the line feeds that end paw's own lines. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

function expectPrintable(result: PawResult): void {
  for (const [stream, text] of [
    ['stdout', result.stdout],
    ['stderr', result.stderr],
  ] as const) {
    expect(CONTROL.exec(text), `${stream}: ${JSON.stringify(text)}`).toBeNull();
    // The fake log record never starts a line of its own.
    expect(text, stream).not.toMatch(/^\{"level":30/m);
  }
}

/** The escaped form paw prints instead. */
const ESCAPED = String.raw`freeze\x1b[2J\x1b]0;pwned\x07\rnow\n{"level":30,"msg":"all good"}`;

/**
 * Text from Redis (a pause's reason and author) and from the platform (an SLA Domain's name,
 * its events, its error messages) reaches the terminal escaped, as real `paw` processes print it.
 */
describe('text from Redis and the platform is printed escaped', () => {
  describe('from Redis: a pause', () => {
    let dir: string;
    let env: Record<string, string>;

    beforeAll(async () => {
      dir = await jobsFolder({
        'nightly.yaml':
          'id: nightly\nkind: snapshot\nschedule: { cron: "0 1 * * *" }\ntargets: { types: [VSPHERE_VM] }\nkeepForever: true\n',
      });
      env = {
        PAW_REDIS_URL: testRedisUrl(),
        PAW_REDIS_PREFIX: uniquePrefix('escaping'),
        PAW_JOBS_DIR: dir,
      };
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    const paw = (args: string[]) => runPaw(args, { cwd: dir, env });

    it('pause, the listing and a second pause print the reason and the author escaped', async () => {
      const paused = await paw([
        'schedules',
        'pause',
        'nightly',
        '--reason',
        HOSTILE,
        '--by',
        'eve\x1b[8m',
      ]);
      expect(paused.code, paused.stderr).toBe(0);
      expectPrintable(paused);
      expect(paused.stdout).toContain(ESCAPED);
      expect(paused.stdout).toContain(String.raw`eve\x1b[8m`);

      const listed = await paw(['schedules']);
      expect(listed.code, listed.stderr).toBe(0);
      expectPrintable(listed);
      expect(listed.stdout).toContain(String.raw`\x1b[2J\x1b]0;pwned\x07\rnow`);

      const again = await paw(['schedules', 'pause', 'nightly', '--reason', 'other']);
      expect(again.code, again.stderr).toBe(0);
      expectPrintable(again);
      expect(again.stdout).toContain(ESCAPED);

      // JSON keeps the text as it is (JSON escapes it): scripts get the real value.
      const json = await paw(['schedules', '--json']);
      expect((JSON.parse(json.stdout) as { pause: { reason: string } }[])[0]?.pause.reason).toBe(
        HOSTILE,
      );
    });
  });

  describe('from the platform: an SLA Domain', () => {
    let t: CliSimulator;

    beforeAll(async () => {
      t = await startCliSimulator({ seed: 5 });
    });
    afterAll(() => t.close());

    it('its name in a table, in its fields, in its events and in an error message', async () => {
      const name = `Gold\x1b]0;pwned\x07\x1b[2J\n{"level":30}`;
      const create = [
        'sla',
        'create',
        '--name',
        name,
        '--object-types',
        'VSPHERE_VM',
        '--frequency',
        'DAILY',
        '--retention',
        '7',
      ];
      const created = await t.paw(create);
      expect(created.code, created.stderr).toBe(0);
      expectPrintable(created);

      const list = await t.paw(['sla', 'list', '--all']);
      expect(list.code, list.stderr).toBe(0);
      expectPrintable(list);
      expect(list.stdout).toContain(String.raw`Gold\x1b]0;pwned\x07\x1b[2J`);

      const events = await t.paw(['events', 'list', '--all']);
      expect(events.code, events.stderr).toBe(0);
      expectPrintable(events);
      expect(events.stdout).toContain(String.raw`\x1b]0;pwned\x07`);

      // The platform refuses the same name again, repeating it in its message.
      const refused = await t.paw(create);
      expect(refused.code).not.toBe(0);
      expectPrintable(refused);
      expect(refused.stderr).toContain(String.raw`Gold\x1b]0;pwned\x07\x1b[2J`);
    });

    it("a service account's name in `paw run <rotate-secret> --dry-run`, with bidi and zero-width characters", async () => {
      const role = t.fixtures.roles.find((entry) => entry.name === 'Read Only Admin')?.id ?? '';
      const name = `svc\u202eexe.\u200b\ufeff\x1b[2J\n{"level":30}`;
      const created = await t.paw([
        'accounts',
        'create',
        '--name',
        name,
        '--role',
        role,
        '--out',
        join(t.dir, 'hostile.json'),
        '--json',
      ]);
      expect(created.code, created.stderr).toBe(0);
      const { clientId } = JSON.parse(created.stdout) as { clientId: string };
      const jobs = await jobsFolder({
        'rotate.yaml': `id: rotate\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "${clientId}" }\nsink: { file: rotated.json }\n`,
      });
      try {
        const env = {
          PAW_JOBS_DIR: jobs,
          PAW_REDIS_URL: testRedisUrl(),
          PAW_REDIS_PREFIX: uniquePrefix('escaping-dry-run'),
        };
        const preview = await t.paw(['run', 'rotate', '--dry-run'], { env, cwd: jobs });
        expect(preview.code, preview.stderr).toBe(0);
        expectInvisibleShown(preview);
        expect(preview.stdout).toContain(
          String.raw`svc\u202eexe.\u200b\ufeff\x1b[2J\n{"level":30}`,
        );
      } finally {
        await rm(jobs, { recursive: true, force: true });
      }
    });
  });
});

/** No bidi, zero-width or control character (but the line feeds ending lines), and no forged line. */
function expectInvisibleShown(result: PawResult): void {
  expectPrintable(result);
  for (const text of [result.stdout, result.stderr]) {
    expect(/[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/.exec(text)).toBeNull();
  }
}

describe('`paw validate` quotes a YAML key escaped', () => {
  it('an escape sequence, a right-to-left override and a zero-width space in a key', async () => {
    const dir = await jobsFolder({
      'nightly.yaml':
        'id: nightly\nkind: snapshot\nschedule: { cron: "0 1 * * *" }\ntargets: { types: [VSPHERE_VM] }\nkeepForever: true\n"ke\\e[2Jy\\u202e\\u200b": 1\n',
    });
    try {
      const result = await runPaw(['validate', '--jobs', dir], { env: {}, cwd: dir });
      expect(result.code, result.stderr).toBe(2);
      expectInvisibleShown(result);
      expect(result.stderr).toContain(String.raw`ke\x1b[2Jy\u202e\u200b`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
