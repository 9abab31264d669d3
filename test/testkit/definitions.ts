import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobDefinitionSchema, type JobDefinition } from '../../src/definitions/job-definition.js';

/** A folder holding the given files (name → YAML text), for definition and CLI tests. */
export async function jobsFolder(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'paw-jobs-'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  return dir;
}

/** A valid definition of each kind, built through the real schema. */
export function exampleDefinition(
  kind: JobDefinition['kind'],
  overrides: Record<string, unknown> = {},
): JobDefinition {
  const base: Record<string, Record<string, unknown>> = {
    snapshot: {
      id: 'nightly',
      kind: 'snapshot',
      schedule: { cron: '0 1 * * *', timezone: 'Europe/Berlin' },
      targets: { types: ['VSPHERE_VM'] },
      retention: { slaDomainName: 'Gold' },
    },
    'sla-window': {
      id: 'window',
      kind: 'sla-window',
      schedule: { cron: '0 22 * * 6', duration: '4h' },
      slaDomains: { names: ['Gold'] },
    },
    'rotate-secret': {
      id: 'rotate',
      kind: 'rotate-secret',
      schedule: { cron: '0 3 1 * *' },
      serviceAccount: { clientId: 'client|5b1d7f3e-2c4a-4e8b-9f6d-0a1b2c3d4e5f' },
      sink: { file: '/tmp/paw-sink.json' },
    },
  };
  return jobDefinitionSchema.parse({ ...base[kind], ...overrides });
}
