import { Vocabulary } from '../../src/platform/vocabulary/vocabulary.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  InvalidDefinitionsError,
  formatProblem,
  type DefinitionProblem,
} from '../../src/definitions/definition-problem.js';
import {
  checkDefinitions,
  findDefinition,
  loadDefinitions,
} from '../../src/definitions/load-definitions.js';
import { matchesNamePattern } from '../../src/definitions/name-pattern.js';
import { retentionOf } from '../../src/definitions/snapshot-definition.js';
import { UsageError } from '../../src/shared/usage-error.js';
import { jobsFolder } from '../testkit/definitions.js';

const snapshot = (extra: string): string =>
  `id: snap\nkind: snapshot\nschedule: { cron: "0 1 * * *", timezone: UTC }\ntargets: { types: [VSPHERE_VM] }\n${extra}`;

async function problemsOf(yaml: string): Promise<DefinitionProblem[]> {
  const dir = await jobsFolder({ 'a.yaml': yaml });
  const report = await checkDefinitions(dir);
  for (const problem of report.problems) expect(problem.file).toBe(join(dir, 'a.yaml'));
  return [...report.problems];
}

/** One problem per case: its line, path, what the message says and what the fix says. */
const CASES: {
  name: string;
  yaml: string;
  line: number;
  path: string;
  message: RegExp;
  fix: RegExp;
}[] = [
  {
    name: 'an invalid cron expression',
    yaml: 'id: x\nkind: rotate-secret\nschedule:\n  cron: "61 * * * *"\nserviceAccount: { clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f" }\nsink: { file: s.json }\n',
    line: 4,
    path: 'schedule.cron',
    message: /minute field "61" is not valid/,
    fix: /five fields .* or six with seconds first/,
  },
  {
    name: 'a cron expression that never fires (30 February)',
    yaml: snapshot('keepForever: true\n').replace('0 1 * * *', '0 1 30 2 *'),
    line: 3,
    path: 'schedule.cron',
    message: /never fires/,
    fix: /day that exists/,
  },
  {
    name: 'a cron expression whose day fields never meet',
    yaml: snapshot('keepForever: true\n').replace('0 1 * * *', '0 0 31 * 2#1'),
    line: 3,
    path: 'schedule.cron',
    message: /never fires: no date in the next 100 years/,
    fix: /ANDed/,
  },
  {
    name: 'an unknown time zone',
    yaml: snapshot('keepForever: true\n').replace('timezone: UTC', 'timezone: Europe/Berln'),
    line: 3,
    path: 'schedule.timezone',
    message: /"Europe\/Berln" is not a known IANA time zone/,
    fix: /did you mean "Europe\/Berlin"/,
  },
  {
    name: 'a snapshot with no retention and no keepForever',
    yaml: snapshot(''),
    line: 1,
    path: '(definition)',
    message: /no retention.*kept forever/,
    fix: /retention: \{ slaDomainId.*keepForever: true/,
  },
  {
    name: 'a snapshot with keepForever: false and no retention',
    yaml: snapshot('keepForever: false\n'),
    line: 5,
    path: 'keepForever',
    message: /no retention/,
    fix: /keepForever: true/,
  },
  {
    name: 'keepForever written inside retention',
    yaml: snapshot('retention: { keepForever: true }\n'),
    line: 5,
    path: 'retention.keepForever',
    message: /unknown key "keepForever"/,
    fix: /top level/,
  },
  {
    name: 'a window whose duration is not shorter than its period',
    yaml: 'id: w\nkind: sla-window\nschedule: { cron: "0 22 * * *", duration: 24h }\nslaDomains: { names: [Gold] }\n',
    line: 3,
    path: 'schedule.duration',
    message: /not shorter than the schedule's period/,
    fix: /shorten the window below/,
  },
  {
    name: 'a window without a duration',
    yaml: 'id: w\nkind: sla-window\nschedule: { cron: "0 22 * * 6" }\nslaDomains: { names: [Gold] }\n',
    line: 3,
    path: 'schedule.duration',
    message: /is required/,
    fix: /add duration: 4h/,
  },
  {
    name: 'a duration on a kind that has none',
    yaml: snapshot('keepForever: true\n').replace('timezone: UTC', 'timezone: UTC, duration: 1h'),
    line: 3,
    path: 'schedule.duration',
    message: /unknown key "duration"/,
    fix: /only sla-window/,
  },
  {
    name: 'an unknown kind',
    yaml: 'id: x\nkind: snapshots\n',
    line: 2,
    path: 'kind',
    message: /"snapshots" is not a kind of job/,
    fix: /did you mean "snapshot"/,
  },
  {
    name: 'a missing kind',
    yaml: 'id: x\nschedule: { cron: "0 1 * * *" }\n',
    line: 1,
    path: 'kind',
    message: /is required/,
    fix: /"snapshot", "sla-window", "rotate-secret"/,
  },
  {
    name: 'an invalid id',
    yaml: snapshot('keepForever: true\n').replace('id: snap', 'id: Snap:1'),
    line: 1,
    path: 'id',
    message: /not a valid id/,
    fix: /lowercase letters, digits and dashes/,
  },
  {
    name: 'a misspelt key',
    yaml: snapshot('keepForever: true\nmaxWiat: 2h\n'),
    line: 6,
    path: 'maxWiat',
    message: /unknown key "maxWiat"/,
    fix: /did you mean "maxWait"/,
  },
  {
    name: 'a bad overlap policy',
    yaml: snapshot('keepForever: true\n').replace('timezone: UTC', 'timezone: UTC, overlap: never'),
    line: 3,
    path: 'schedule.overlap',
    message: /"never" is not valid/,
    fix: /"skip", "allow"/,
  },
  {
    name: 'a duration without a unit',
    yaml: snapshot('keepForever: true\n').replace('timezone: UTC', 'timezone: UTC, catchUp: 7200'),
    line: 3,
    path: 'schedule.catchUp',
    message: /expected a duration/,
    fix: /write a text here|write a/,
  },
  {
    name: 'an unknown workload type',
    yaml: snapshot('keepForever: true\n').replace('[VSPHERE_VM]', '[VSPERE_VM]'),
    line: 4,
    path: 'targets.types[0]',
    message: /"VSPERE_VM" is not a workload type paw knows/,
    fix: /did you mean "VSPHERE_VM"\?.*platform\.vocabulary\.workloadTypes/,
  },
  {
    name: 'targets that select nothing',
    yaml: snapshot('keepForever: true\n').replace('{ types: [VSPHERE_VM] }', '{}'),
    line: 4,
    path: 'targets',
    message: /selects nothing/,
    fix: /ids.*selectors/,
  },
  {
    name: 'a malformed service-account client id',
    yaml: 'id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "app" }\nsink: { file: s.json }\n',
    line: 4,
    path: 'serviceAccount.clientId',
    message: /not a service-account client id/,
    fix: /client\|<uuid>/,
  },
  {
    name: 'a secret written into a definition',
    yaml: 'id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount:\n  clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f"\n  clientSecret: hunter2\nsink: { file: s.json }\n',
    line: 6,
    path: 'serviceAccount.clientSecret',
    message: /unknown key "clientSecret"/,
    fix: /secrets never go in a job definition/,
  },
  {
    name: 'broken YAML',
    yaml: 'id: x\n  kind: [oops\n',
    line: 1,
    path: '(file)',
    message: /invalid YAML/,
    fix: /YAML syntax/,
  },
  {
    name: 'a document that is not a mapping',
    yaml: '- id: x\n',
    line: 1,
    path: '(definition)',
    message: /not a mapping/,
    fix: /keys and values/,
  },
];

describe('job definition validation', () => {
  it.each(CASES)('names file, line, path and fix for $name', async (testCase) => {
    const problems = await problemsOf(testCase.yaml);
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem).toMatchObject({ line: testCase.line, path: testCase.path });
    expect(problem?.message).toMatch(testCase.message);
    expect(problem?.fix).toMatch(testCase.fix);
    expect(formatProblem(problem!)).toMatch(
      new RegExp(
        `a\\.yaml:${testCase.line}:\\d+: ${testCase.path.replace(/[.()[\]]/g, '\\$&')}: .*; fix: `,
      ),
    );
  });

  it('never echoes a value that could be a secret', async () => {
    const problems = await problemsOf(
      'id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: "s3cr3t-value"\nsink: { file: s.json }\n',
    );
    expect(problems.map(formatProblem).join('\n')).not.toContain('s3cr3t-value');
  });

  it('lists every problem of every file at once, including ids used twice across files', async () => {
    const dir = await jobsFolder({
      'a.yaml': snapshot('keepForever: true\n'),
      'b.yaml': `${snapshot('keepForever: true\n')}---\nid: other\nkind: snapshot\n`,
    });
    const report = await checkDefinitions(dir);
    expect(report.definitions.map((loaded) => loaded.definition.id)).toEqual(['snap']);
    const described = report.problems.map(formatProblem);
    expect(described).toHaveLength(4);
    expect(described[0]).toMatch(
      /b\.yaml:1:5: id: "snap" is already the id of the definition at .*a\.yaml:1; fix: give each definition a unique id/,
    );
    expect(described.slice(1).every((line) => /b\.yaml:7:1: /.test(line))).toBe(true);
    const error = await loadDefinitions(dir).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidDefinitionsError);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(/^4 problems in the job definitions:/);
  });

  it('reports a missing folder with the way to point at the right one', async () => {
    const report = await checkDefinitions('/nonexistent/paw-jobs');
    expect(report.problems).toEqual([
      expect.objectContaining({
        path: '(folder)',
        message: 'does not exist',
        fix: expect.stringMatching(/PAW_JOBS_DIR/) as unknown,
      }),
    ]);
  });

  it('validates the examples in jobs/, one of each kind', async () => {
    const report = await checkDefinitions('jobs');
    expect(report.problems).toEqual([]);
    expect(new Set(report.definitions.map((loaded) => loaded.definition.kind))).toEqual(
      new Set(['snapshot', 'sla-window', 'rotate-secret']),
    );
  });

  it('applies defaults, resolves the sink against the file, and finds definitions by id', async () => {
    const dir = await jobsFolder({
      'r.yaml':
        'id: r\nkind: rotate-secret\nschedule: { cron: "0 3 1 * *" }\nserviceAccount: { clientId: "client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f" }\nsink: { file: secrets/app.json }\n---\n' +
        snapshot('retention: { slaDomainId: sla-1 }\n'),
    });
    const definitions = await loadDefinitions(dir);
    const rotation = findDefinition(definitions, 'r', dir).definition;
    expect(rotation).toMatchObject({
      enabled: true,
      schedule: { timezone: 'UTC', catchUp: '0s', overlap: 'skip' },
      sink: { file: join(dir, 'secrets/app.json') },
    });
    const snap = findDefinition(definitions, 'snap', dir).definition;
    expect(snap.kind === 'snapshot' && retentionOf(snap)).toEqual({ slaDomainId: 'sla-1' });
    expect(snap.kind === 'snapshot' && snap.maxWait).toBe('6h');
    expect(Object.isFrozen(snap)).toBe(true);
    expect(() => findDefinition(definitions, 'snp', dir)).toThrow(/did you mean "snap"/);
  });

  it('takes any spelling of a known type, and words the settings add', async () => {
    const dir = await jobsFolder({
      'a.yaml': snapshot('keepForever: true\n').replace(
        '[VSPHERE_VM]',
        '[VmwareVirtualMachine, MSSQL, NutanixVm]',
      ),
    });
    expect((await checkDefinitions(dir)).problems.map((problem) => problem.path)).toEqual([
      'targets.types[2]',
    ]);
    const report = await checkDefinitions(dir, {
      vocabulary: new Vocabulary({ workloadTypes: { VSPHERE_VM: ['NutanixVm'] } }),
    });
    expect(report.problems).toEqual([]);
    expect(report.warnings).toEqual([]);
  });

  it('warns, without failing, when a snapshot selects types that cannot be snapshotted', async () => {
    const dir = await jobsFolder({
      'a.yaml': snapshot('keepForever: true\n').replace('[VSPHERE_VM]', '[VSPHERE_VM, NAS_SHARE]'),
    });
    const report = await checkDefinitions(dir);
    expect(report.problems).toEqual([]);
    expect(report.warnings[0]?.message).toMatch(/NAS_SHARE cannot be snapshotted on demand/);
  });

  it('matches name patterns as case-insensitive whole-name globs', () => {
    expect(matchesNamePattern('PROD-sql-01', 'prod-*')).toBe(true);
    expect(matchesNamePattern('preprod-sql-01', 'prod-*')).toBe(false);
    expect(matchesNamePattern('db1.example', ['web?', 'db?.example'])).toBe(true);
    expect(matchesNamePattern('db1xexample', 'db?.example')).toBe(false);
    expect(matchesNamePattern('a*b', 'a\\*b')).toBe(false);
    expect(matchesNamePattern('prod-(1)', 'prod-(?)')).toBe(true);
    expect(matchesNamePattern('abcbcd', 'a*bcd')).toBe(true);
    expect(matchesNamePattern('sql-01', '*')).toBe(true);
    expect(matchesNamePattern('', '*')).toBe(true);
    expect(matchesNamePattern('x', '')).toBe(false);
    expect(matchesNamePattern('ab', 'a**b*')).toBe(true);
  });

  it('matches a pathological pattern against a long name without backtracking blow-up', () => {
    // As a regular expression, `a*a*…a*b` against 30 a's took seconds per name.
    const pattern = `${'a*'.repeat(40)}b`;
    const names = Array.from({ length: 200 }, (_, index) => 'a'.repeat(30 + (index % 10)));
    // An exponential matcher does not finish these within the test's timeout (no timing here).
    for (const name of names) expect(matchesNamePattern(name, pattern)).toBe(false);
    expect(matchesNamePattern(`${'a'.repeat(60)}b`, pattern)).toBe(true);
  });

  it('refuses a name pattern longer than paw matches', async () => {
    const problems = await problemsOf(
      `id: snap\nkind: snapshot\nschedule: { cron: "0 1 * * *", timezone: UTC }\ntargets: { namePattern: "${'*'.repeat(300)}" }\n`,
    );
    expect(problems.map((problem) => problem.message).join('\n')).toMatch(/at most 256 characters/);
  });
});
