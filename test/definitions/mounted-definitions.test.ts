import { mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../src/definitions/definition-problem.js';
import { checkDefinitions } from '../../src/definitions/load-definitions.js';
import { KubeletVolume } from '../testkit/kubelet-volume.js';

const definition = (id: string): string =>
  `id: ${id}\nkind: snapshot\nschedule: { cron: "0 1 * * *" }\ntargets: { types: [VSPHERE_VM] }\nkeepForever: true\n`;

describe('job definitions in a folder of links (a Kubernetes ConfigMap volume)', () => {
  it("loads each key through kubelet's links, and none of kubelet's own entries", async () => {
    const volume = await KubeletVolume.create({
      'night.yaml': definition('night'),
      'calendars.yaml': 'calendars: { holidays: { days: [2026-12-25] } }\n',
      'window.yml': definition('window').replace('"0 1 * * *"', '"0 1 * * *", skip: [holidays]'),
    });
    const report = await checkDefinitions(volume.dir);
    expect(report.problems).toEqual([]);
    expect(report.files).toEqual([join(volume.dir, 'night.yaml'), join(volume.dir, 'window.yml')]);
    expect(report.definitions.map((loaded) => loaded.definition.id)).toEqual(['night', 'window']);
    // calendars.yaml is read through its link too.
    expect(report.definitions[1]?.definition.schedule.skip).toEqual([
      { calendar: 'holidays', days: ['2026-12-25'] },
    ]);

    await volume.update({ 'night.yaml': definition('night'), 'extra.yaml': definition('extra') });
    const after = await checkDefinitions(volume.dir);
    expect(after.definitions.map((loaded) => loaded.definition.id)).toEqual(['extra', 'night']);
  });

  it('loads a folder that is itself a link into the volume (items with a path)', async () => {
    const volume = await KubeletVolume.create({ 'jobs/night.yaml': definition('night') });
    const report = await checkDefinitions(join(volume.dir, 'jobs'));
    expect(report.problems).toEqual([]);
    expect(report.definitions.map((loaded) => loaded.definition.id)).toEqual(['night']);
  });

  it('refuses a link that leaves the folder, or leads nowhere, saying where it points', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'paw-elsewhere-'));
    await writeFile(join(elsewhere, 'outside.yaml'), definition('outside'));
    const dir = await mkdtemp(join(tmpdir(), 'paw-jobs-'));
    await writeFile(join(dir, 'inside.yaml'), definition('inside'));
    await symlink(join(elsewhere, 'outside.yaml'), join(dir, 'outside.yaml'));
    await symlink('gone.yaml', join(dir, 'dangling.yaml'));
    const report = await checkDefinitions(dir);
    expect(report.problems.map(formatProblem)).toEqual([
      `${join(dir, 'dangling.yaml')}: (file): is a link to ${join(dir, 'gone.yaml')}, which does not exist; fix: ` +
        'correct or remove the link',
      `${join(dir, 'outside.yaml')}: (file): is a link to ${join(elsewhere, 'outside.yaml')}, outside ${dir}; fix: ` +
        'paw reads definitions only from inside their folder: copy the file into it, or point PAW_JOBS_DIR (jobs.dir) at the folder that holds it',
    ]);
    expect(report.definitions.map((loaded) => loaded.definition.id)).toEqual(['inside']);
  });
});
