import { describe, expect, it } from 'vitest';
import { extractJobStatusLink } from '../../../src/platform/jobs/job-status-link.js';
import { snapshotJobRecordSchema, toSnapshotJob } from '../../../src/platform/jobs/snapshot-job.js';
import { resolvePlatformLink } from '../../../src/platform/http/origin-guard.js';

describe('extractJobStatusLink', () => {
  it.each([
    [{ jobStatusUrl: 'https://p.example/j/1' }, 'https://p.example/j/1'],
    [{ jobStatusLink: '/api/rest/j/2' }, '/api/rest/j/2'],
    [{ link: 'api/rest/j/3' }, 'api/rest/j/3'],
    [{ href: 'https://p.example/j/4' }, 'https://p.example/j/4'],
    [{ jobStatusUrl: { href: '/j/5' } }, '/j/5'],
    [
      {
        links: [
          { href: '/other', rel: 'cancel' },
          { href: '/j/6', rel: 'jobStatus' },
        ],
      },
      '/j/6',
    ],
    [{ links: [{ href: '/j/7', rel: 'STATUS' }] }, '/j/7'],
    [
      {
        links: [
          { href: '/self', rel: 'self' },
          { href: '/j/8', rel: 'status' },
        ],
      },
      '/j/8',
    ],
    [{ links: [{ href: '/j/9', rel: 'self' }] }, '/j/9'],
  ])('finds the link in %j', (metadata, expected) => {
    expect(extractJobStatusLink(metadata)).toBe(expected);
  });

  it('finds nothing where there is nothing', () => {
    expect(extractJobStatusLink(null)).toBeUndefined();
    expect(extractJobStatusLink({ links: [{ href: '/x', rel: 'cancel' }] })).toBeUndefined();
    expect(extractJobStatusLink({ jobStatusUrl: '' })).toBeUndefined();
  });

  it('resolves relative links against {base_url}, prefix kept, and leaves absolute ones alone', () => {
    const base = new URL('https://acct.example/prefix');
    expect(resolvePlatformLink('/api/rest/j/1', base, 'op').href).toBe(
      'https://acct.example/prefix/api/rest/j/1',
    );
    expect(resolvePlatformLink('api/rest/j/1', base, 'op').href).toBe(
      'https://acct.example/prefix/api/rest/j/1',
    );
    expect(resolvePlatformLink('https://evil.example/j', base, 'op').origin).toBe(
      'https://evil.example',
    );
    expect(resolvePlatformLink('//evil.example/j', base, 'op').origin).toBe('https://evil.example');
  });
});

describe('snapshotJobRecordSchema', () => {
  const parse = (record: unknown) =>
    toSnapshotJob(snapshotJobRecordSchema.parse(record), 'in_progress');

  it('parses a sparse, oddly typed record tolerantly', () => {
    const job = parse({
      id: 'MSSQL_DB_BACKUP_db_run:::0',
      status: 'RUNNING',
      progress: '142',
      error: null,
      somethingNew: { nested: true },
    });
    expect(job).toMatchObject({
      id: 'MSSQL_DB_BACKUP_db_run:::0',
      progress: 100,
      errorMessage: undefined,
    });
    expect(parse({ id: 'j', status: 'FAILED', error: { message: 'disk full' } }).errorMessage).toBe(
      'disk full',
    );
  });

  it('requires an id and a status', () => {
    expect(snapshotJobRecordSchema.safeParse({ status: 'RUNNING' }).success).toBe(false);
  });
});
