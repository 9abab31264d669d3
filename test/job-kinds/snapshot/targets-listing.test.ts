import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import { listingWalks, resolveTargets } from '../../../src/job-kinds/snapshot/targets.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import type { Workload } from '../../../src/platform/records/workload.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

/**
 * A definition's workloads are listed one walk per cluster, side by side (at the platform's
 * latency each page of a walk is a round trip of a second or more): the walks together select
 * exactly what one listing of everything does, in the same order every time.
 */
describe('listing a definition’s workloads', () => {
  it('walks once per cluster (and SLA Domain) while that makes at most 16, the one type as a filter', () => {
    expect(listingWalks({ types: ['VSPHERE_VM', 'MSSQL_DATABASE'] })).toEqual([{}]);
    expect(listingWalks({ types: ['VSPHERE_VM'], clusterIds: ['a', 'b'] })).toEqual([
      { type: 'VSPHERE_VM', clusterId: 'a' },
      { type: 'VSPHERE_VM', clusterId: 'b' },
    ]);
    expect(listingWalks({ clusterIds: ['a', 'b'], slaDomainIds: ['s', 't'] })).toEqual([
      { clusterId: 'a', slaDomainId: 's' },
      { clusterId: 'a', slaDomainId: 't' },
      { clusterId: 'b', slaDomainId: 's' },
      { clusterId: 'b', slaDomainId: 't' },
    ]);
    // 17 clusters would be 17 walks: one listing, the clusters checked here.
    const many = Array.from({ length: 17 }, (_, index) => `c${index}`);
    expect(listingWalks({ clusterIds: many })).toEqual([{}]);
    // 4 clusters by 5 SLA Domains would be 20: split by cluster only.
    expect(
      listingWalks({ clusterIds: ['a', 'b', 'c', 'd'], slaDomainIds: ['1', '2', '3', '4', '5'] }),
    ).toHaveLength(4);
  });

  describe.each(['rest', 'graphql'] as const)('through %s', (api) => {
    let kit: SimulatorKit;
    let platform: PlatformClient;

    beforeAll(async () => {
      kit = await startSimulatorKit({ workloads: 300, seed: 5 }, `targets-listing-${api}`);
      platform = await createPlatformClient({
        settings: settingsSchema.parse({
          platform: { credentialsFile: kit.credentialsFile, api, pageSize: 20 },
        }),
        logger: captureLogs('info').logger,
      });
    });
    afterAll(async () => {
      await platform?.close();
      await kit?.close();
    });

    it('selects what one listing of everything selects, in cluster order, every time', async () => {
      const clusterIds = kit.sim.clusters.map((cluster) => cluster.id);
      const types = ['VSPHERE_VM', 'MSSQL_DATABASE'];
      const everything: Workload[] = [];
      for await (const workload of platform.api.workloads.list({})) everything.push(workload);
      const kinds = (workload: Workload) => platform.api.vocabulary.workloadKind(workload.type);
      const expected = everything.filter((workload) => types.includes(kinds(workload) ?? ''));
      expect(expected.length).toBeGreaterThan(40);

      const first = await resolveTargets({ types, clusterIds }, platform);
      const second = await resolveTargets({ types, clusterIds }, platform);
      const ids = (workloads: readonly Workload[]) => workloads.map((workload) => workload.id);
      expect(new Set(ids(first.workloads))).toEqual(new Set(ids(expected)));
      expect(ids(first.workloads)).toHaveLength(expected.length);
      expect(ids(second.workloads)).toEqual(ids(first.workloads));
      // Walk order: every workload of the first cluster before any of the second.
      const clusterOrder = first.workloads.map((workload) =>
        clusterIds.indexOf(workload.clusterId ?? ''),
      );
      expect(clusterOrder).toEqual([...clusterOrder].sort((a, b) => a - b));
    });
  });
});
