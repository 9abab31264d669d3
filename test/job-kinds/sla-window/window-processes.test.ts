import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settingsSchema } from '../../../src/config/settings-schema.js';
import type { JobDefinition } from '../../../src/definitions/job-definition.js';
import {
  createPlatformClient,
  type PlatformClient,
} from '../../../src/platform/platform-client.js';
import { runIdFor } from '../../../src/queue/run-id.js';
import type { SimulatorHandle } from '../../../src/simulator/simulator.js';
import { exampleDefinition } from '../../testkit/definitions.js';
import { captureLogs } from '../../testkit/log-capture.js';
import { connectTestRedis } from '../../testkit/redis-connection.js';
import { redisContents, testFleet } from '../../testkit/test-fleet.js';
import type { PawFleet } from '../../testkit/paw-fleet.js';
import { eventually } from '../../testkit/eventually.js';
import { startSimulatorKit, type SimulatorKit } from '../../testkit/simulator-kit.js';

/**
 * Maintenance windows run by real `paw scheduler` and `paw worker` processes: the resume
 * happens with no scheduler left running, a hand-paused cluster stays paused, overlapping
 * windows resume at the last end, and workers killed at each dangerous step lose nothing.
 */

let sim: SimulatorHandle;
let kit: SimulatorKit;
let admin: PlatformClient;
let redis: Redis;
let dir: string;
let credentialsFile: string;
const fleets: PawFleet[] = [];

beforeAll(async () => {
  kit = await startSimulatorKit({ workloads: 10 }, 'window-processes');
  sim = kit.sim;
  dir = kit.dir;
  credentialsFile = kit.credentialsFile;
  admin = await createPlatformClient({
    settings: settingsSchema.parse({ platform: { credentialsFile } }),
    logger: captureLogs('info').logger,
  });
  redis = connectTestRedis();
});

afterAll(async () => {
  await Promise.all(fleets.map((fleet) => fleet.stop()));
  await admin?.close();
  await redis?.quit();
  await kit?.close();
});

async function newSlaDomain(name: string): Promise<string> {
  const domain = await admin.rest.slaDomains.create({
    name: `${name}-${Math.random().toString(36).slice(2, 8)}`,
    objectTypes: ['VSPHERE_VM'],
    frequency: { unit: 'DAILY', interval: 1 },
    retention: { unit: 'DAYS', duration: 7 },
  });
  return domain.id;
}

async function pauseStatus(slaDomainId: string, clusterId: string): Promise<string | undefined> {
  const domain = await admin.rest.slaDomains.get(slaDomainId);
  return (
    domain.clusters?.find((cluster) => cluster.clusterId === clusterId)?.pauseStatus ?? undefined
  );
}

function connectedClusters(): string[] {
  return sim.clusters
    .filter((cluster) => cluster.connectionState === 'Connected')
    .map((cluster) => cluster.id);
}

/** A cron expression (seconds first, UTC) that fires once a day, at `at`'s second. */
function cronAt(at: Date): string {
  return `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
}

// Real processes on a shared 2-core machine: generous, so load never fails a test.
describe('sla-window with real processes', { timeout: 180_000 }, () => {
  it('resumes with no scheduler running, leaves a hand pause alone, resumes overlaps at the last end', async () => {
    const slaDomainId = await newSlaDomain('no-scheduler');
    const [cluster = '', handPaused = ''] = connectedClusters();
    await admin.rest.slaDomains.pause(slaDomainId, [handPaused]);

    const fleet = await testFleet(redis, { credentialsFile, label: 'no-scheduler' });
    fleets.push(fleet);
    await fleet.start(['worker', '--kinds', 'sla-window']);

    // The scheduler starts with both windows a day away, and is told of the near ones once it
    // is ready: how long a process takes to start on a loaded machine is then no part of when
    // the windows open. A opens 8 s after that for 20 s; B 2 s later for 25 s, so it ends last.
    const slaDomains = { ids: [slaDomainId], clusterIds: [cluster, handPaused] };
    const jobs = await mkdtemp(join(dir, 'jobs-'));
    const windows = (startA: Date, startB: Date) =>
      writeFile(
        join(jobs, 'windows.yaml'),
        [
          `id: window-a\nkind: sla-window\nschedule: { cron: '${cronAt(startA)}', timezone: UTC, duration: 20s }\nslaDomains: ${JSON.stringify(slaDomains)}`,
          `id: window-b\nkind: sla-window\nschedule: { cron: '${cronAt(startB)}', timezone: UTC, duration: 25s }\nslaDomains: ${JSON.stringify(slaDomains)}`,
        ].join('\n---\n'),
      );
    const aDayAway = new Date(Date.now() + 86_400_000 / 2);
    await windows(aDayAway, new Date(aDayAway.getTime() + 2_000));
    const scheduler = await fleet.start(['scheduler', '--jobs', jobs]);
    const startA = new Date(Math.ceil((Date.now() + 8_000) / 1000) * 1000);
    const startB = new Date(startA.getTime() + 2_000);
    await windows(startA, startB);
    scheduler.child.kill('SIGHUP');
    await scheduler.waitForStderr(/definitions reloaded: changed window-a, window-b/);

    const runA = runIdFor('window-a', startA, 'cron');
    const runB = runIdFor('window-b', startB, 'cron');
    const paused = (run: string) => async () =>
      (await fleet.outcomes.items.get(run, `${slaDomainId}/${cluster}/pause`))?.status ===
      'succeeded';
    await fleet.waitForRun(runA, () => true);
    await eventually('window A paused', paused(runA));
    await eventually('window B paused', paused(runB));
    // Both windows are open: from here on, no scheduler runs.
    await scheduler.stop('SIGKILL');
    expect(Date.now()).toBeLessThan(startA.getTime() + 20_000);

    const a = await fleet.waitForRun(runA);
    expect(a.status).toBe('succeeded');
    expect(await pauseStatus(slaDomainId, cluster)).toBe('PAUSED'); // B still holds it
    const aResume = await fleet.outcomes.items.get(runA, `${slaDomainId}/${cluster}/resume`);
    expect(aResume?.status).toBe('skipped');
    expect(aResume?.reason).toMatch(
      /still held by 1 other open window.*the last of them to end resumes it/,
    );

    const b = await fleet.waitForRun(runB);
    expect(b.status).toBe('succeeded');
    expect(await pauseStatus(slaDomainId, cluster)).toBe('NOT_PAUSED');
    expect(await pauseStatus(slaDomainId, handPaused)).toBe('PAUSED');
    expect(await fleet.outcomes.items.get(runB, `${slaDomainId}/${cluster}/resume`)).toMatchObject({
      status: 'succeeded',
      reason: 'resumed',
    });
    for (const run of [runA, runB]) {
      const pause = await fleet.outcomes.items.get(run, `${slaDomainId}/${handPaused}/pause`);
      expect(pause?.reason).toMatch(/already paused by someone else: left alone/);
    }
    const aHand = await fleet.outcomes.items.get(runA, `${slaDomainId}/${handPaused}/resume`);
    expect(aHand?.reason).toMatch(/1 other open window.*paused by someone else: paw will not/);
    const bHand = await fleet.outcomes.items.get(runB, `${slaDomainId}/${handPaused}/resume`);
    expect(bHand?.reason).toMatch(/paused by someone else before the window: left paused/);
  });

  it.concurrent.each([
    ['window.after-resume-enqueued', 'window.after-mark-ended'],
    ['window.after-hold', 'window.after-resume'],
    ['window.after-pause', 'window.after-resume'],
  ])('loses nothing when workers die at %s and then at %s', async (atPause, atResume) => {
    const slaDomainId = await newSlaDomain('crash');
    const [cluster = ''] = connectedClusters();
    const label = `window-${atPause.split('.')[1] ?? ''}`;
    const fleet = await testFleet(redis, { credentialsFile, label });
    fleets.push(fleet);
    const definition: JobDefinition = exampleDefinition('sla-window', {
      id: label,
      // Long enough that two workers start (seconds each on a loaded machine) before it ends:
      // the second must find the window still open to take the pause over.
      schedule: { cron: '0 0 * * * *', duration: '45s' },
      slaDomains: { ids: [slaDomainId], clusterIds: [cluster] },
    });

    const first = await fleet.start(['worker', '--kinds', 'sla-window'], { PAW_CRASH_AT: atPause });
    const runId = await fleet.fire(definition);
    expect((await first.exited).signal).toBe('SIGKILL');
    const second = await fleet.start(['worker', '--kinds', 'sla-window'], {
      PAW_CRASH_AT: atResume,
    });
    // The second worker takes the pause over (or finds it made) within the window.
    await eventually(
      'the pause',
      async () => (await pauseStatus(slaDomainId, cluster)) === 'PAUSED',
    );
    expect((await second.exited).signal).toBe('SIGKILL');
    await fleet.start(['worker', '--kinds', 'sla-window']);
    const run = await fleet.waitForRun(runId);

    expect(run.status).toBe('succeeded');
    expect(await pauseStatus(slaDomainId, cluster)).toBe('NOT_PAUSED');
    expect(await fleet.outcomes.items.get(runId, `${slaDomainId}/${cluster}/pause`)).toMatchObject({
      status: 'succeeded',
      reason: 'paused',
    });
    expect(await fleet.outcomes.items.get(runId, `${slaDomainId}/${cluster}/resume`)).toMatchObject(
      {
        status: 'succeeded',
      },
    );
    const stored = await redisContents(redis, fleet.prefix);
    expect(stored).not.toContain(`:sla-window:hold:${slaDomainId}`);
  });

  it('puts no secret or token in any log, job or Redis key or value', async () => {
    const issued = Object.values(sim.issuedSecrets()).flat();
    expect(issued.length).toBeGreaterThan(0);
    for (const fleet of fleets) {
      const output = fleet.output();
      const stored = await redisContents(redis, fleet.prefix);
      for (const secret of issued) {
        expect(output.includes(secret)).toBe(false);
        expect(stored.includes(secret)).toBe(false);
      }
    }
  });
});
