import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDefinitions } from '../../src/definitions/load-definitions.js';
import { jobsFolder } from '../testkit/definitions.js';

const BASE = `id: nightly
kind: snapshot
schedule: { cron: '0 1 * * *' }
targets: { types: [VSPHERE_VM] }
retention: { slaDomainName: Gold }
`;

describe('notify in job definitions', () => {
  it('accepts a webhook URL or a file holding it, with defaults, and resolves the file next to the definition', async () => {
    const dir = await jobsFolder({
      'a.yaml': `${BASE}notify: { webhook: { url: 'https://hooks.example.com/T/B/x' } }\n`,
      'b.yaml': `${BASE.replace('nightly', 'other')}notify: { webhook: { urlFile: secrets/hook, on: always, format: slack } }\n`,
    });
    const report = await checkDefinitions(dir);
    expect(report.problems).toEqual([]);
    const [a, b] = report.definitions.map((loaded) => loaded.definition);
    expect(a?.notify).toEqual({
      webhook: {
        url: 'https://hooks.example.com/T/B/x',
        on: 'failure',
        format: 'json',
        allowInternalAddress: false,
      },
    });
    expect(b?.notify).toEqual({
      webhook: {
        urlFile: join(dir, 'secrets/hook'),
        on: 'always',
        format: 'slack',
        allowInternalAddress: false,
      },
    });
  });

  it('names the problem and the fix, and never echoes a URL that may hold a token', async () => {
    const dir = await jobsFolder({
      'bad.yaml': `${BASE}notify: { webhook: { url: 'not a url but a tok-3f9a secret' } }\n---\n${BASE.replace('nightly', 'two')}notify: { webhook: { on: sometimes } }\n`,
    });
    const report = await checkDefinitions(dir);
    const messages = report.problems.map(
      (problem) => `${problem.path}: ${problem.message}; fix: ${problem.fix}`,
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^notify\.webhook\.url: is not an http\(s\) URL.*fix: write the full address/,
        ),
        expect.stringMatching(
          /^notify\.webhook\.on: "sometimes" is not valid here; fix: .*"failure", "always"/,
        ),
      ]),
    );
    expect(JSON.stringify(report.problems)).not.toContain('tok-3f9a');
  });

  it('wants exactly one of url and urlFile', async () => {
    const dir = await jobsFolder({
      'none.yaml': `${BASE}notify: { webhook: { on: always } }\n`,
      'both.yaml': `${BASE.replace('nightly', 'both')}notify: { webhook: { url: 'https://h.example.com/x', urlFile: f } }\n`,
    });
    const messages = (await checkDefinitions(dir)).problems.map((problem) => problem.message);
    expect(messages).toEqual(
      expect.arrayContaining(['names the URL twice (url and urlFile)', 'names no URL']),
    );
  });

  it('refuses loopback, private and link-local webhook addresses (https too) unless the definition allows them', async () => {
    const hook = (id: string, url: string, extra = ''): string =>
      `${BASE.replace('nightly', id)}notify: { webhook: { url: '${url}'${extra} } }\n`;
    const dir = await jobsFolder({
      'a.yaml': [
        hook('metadata', 'https://169.254.169.254/latest/x'),
        hook('private', 'https://10.1.2.3/hook'),
        hook('loopback', 'http://127.0.0.1:9/hook'),
        hook('named', 'https://localhost/hook'),
        hook('ipv6', 'https://[fe80::1]/hook'),
        hook('mapped', 'https://[::ffff:192.168.0.9]/hook'),
        hook('allowed', 'https://10.1.2.3/hook', ', allowInternalAddress: true'),
        hook('public', 'https://203.0.113.7/hook'),
      ].join('---\n'),
    });
    const report = await checkDefinitions(dir);
    expect(report.problems.map((problem) => `${problem.line}: ${problem.message}`)).toEqual([
      expect.stringMatching(/^6: points at 169\.254\.169\.254, a link-local address/),
      expect.stringMatching(/^13: points at 10\.1\.2\.3, a private address/),
      expect.stringMatching(/^20: points at 127\.0\.0\.1, a loopback address/),
      expect.stringMatching(/^27: points at localhost, a loopback address/),
      expect.stringMatching(/^34: points at \[fe80::1\], a link-local address/),
      expect.stringMatching(/^41: points at \[::ffff:c0a8:9\], a private address/),
    ]);
    expect(report.problems[0]?.fix).toMatch(/allowInternalAddress: true/);
    expect(report.definitions.map((loaded) => loaded.definition.id)).toEqual(['allowed', 'public']);
  });
});
