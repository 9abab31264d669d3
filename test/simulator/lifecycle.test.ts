import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/simulator.js';
import { isUsageError } from '../../src/shared/usage-error.js';
import { eventually } from '../testkit/eventually.js';

async function workloadIds(baseUrl: string, token: string): Promise<string[]> {
  const response = await request(`${baseUrl}/api/rest/workloads?first=1000`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.body.json()) as { data: { nodes: { id: string; name: string }[] } };
  return body.data.nodes.map((node) => `${node.id} ${node.name}`);
}

async function tokenFor(
  baseUrl: string,
  credentials: { client_id: string; client_secret: string },
) {
  const response = await request(`${baseUrl}/api/client_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  });
  return ((await response.body.json()) as { access_token: string }).access_token;
}

describe('startSimulator', () => {
  it('runs several simulators in one process, each with its own state; a seed fixes the inventory', async () => {
    const [a, b, c] = await Promise.all([
      startSimulator({ seed: 3, workloads: 40 }),
      startSimulator({ seed: 3, workloads: 40 }),
      startSimulator({ seed: 4, workloads: 40 }),
    ]);
    try {
      expect(new Set([a.baseUrl, b.baseUrl, c.baseUrl]).size).toBe(3);
      const ports = [a, b, c].flatMap((sim) => [
        sim.baseUrl,
        ...sim.clusters.map((cluster) => cluster.baseUrl),
      ]);
      expect(new Set(ports).size).toBe(ports.length);
      const [idsA, idsB, idsC] = await Promise.all(
        [a, b, c].map(async (sim) =>
          workloadIds(sim.baseUrl, await tokenFor(sim.baseUrl, sim.credentials)),
        ),
      );
      expect(idsA).toEqual(idsB);
      expect(idsA).not.toEqual(idsC);
      // Same inventory, but secrets are never derived from the seed.
      expect(a.credentials.client_id).toBe(b.credentials.client_id);
      expect(a.credentials.client_secret).not.toBe(b.credentials.client_secret);
      // A token of one simulator means nothing to another.
      const tokenA = await tokenFor(a.baseUrl, a.credentials);
      const response = await request(`${b.baseUrl}/api/rest/workloads`, {
        headers: { authorization: `Bearer ${tokenA}` },
      });
      expect(response.statusCode).toBe(401);
      await response.body.dump();
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });

  it('exposes clusters, credentials in the platform format, fixtures and stats', async () => {
    const sim = await startSimulator({ workloads: 10 });
    try {
      expect(sim.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(sim.credentials).toEqual({
        client_id: expect.stringMatching(/^client\|[0-9a-f-]{36}$/) as string,
        client_secret: expect.any(String) as string,
        name: 'paw-automation',
        access_token_uri: `${sim.baseUrl}/api/client_token`,
      });
      expect(sim.clusters.length).toBe(4);
      expect(sim.clusters.some((cluster) => cluster.connectionState === 'Disconnected')).toBe(true);
      expect(sim.clusters.some((cluster) => cluster.version < '9.6.0')).toBe(true);
      for (const cluster of sim.clusters) {
        const response = await request(`${cluster.baseUrl}/api/v1/cluster/me/version`);
        expect(await response.body.json()).toEqual({ version: cluster.version });
      }
      expect(sim.fixtures().clusters.map((cluster) => cluster.baseUrl)).toEqual(
        sim.clusters.map((cluster) => cluster.baseUrl),
      );
      expect(sim.stats().requests).toBe(4);
    } finally {
      await sim.stop();
    }
  });

  it('closes every server on stop, even with a request hanging on an injected fault', async () => {
    const sim = await startSimulator({
      workloads: 5,
      faults: { operations: { getClusterVersion: { hangRate: 1 } } },
    });
    const hanging = request(`${sim.clusters[0]?.baseUrl ?? ''}/api/v1/cluster/me/version`).catch(
      (error: unknown) => error,
    );
    // Let the request reach the server before stopping.
    await eventually(
      'the hanging request to reach the server',
      () => sim.stats().faultsInjected['hang'] !== undefined,
      { timeoutMs: 2_000, intervalMs: 10, otherwise: () => undefined },
    );
    await sim.stop();
    expect(await hanging).toBeInstanceOf(Error);
    await expect(request(`${sim.baseUrl}/api/rest/workloads`)).rejects.toThrow();
    await sim.stop(); // a second stop is harmless
  });

  it('refuses invalid options with a usage error that names them', async () => {
    const error = await startSimulator({ workloads: 0, timeScale: -1 }).catch(
      (caught: unknown) => caught,
    );
    expect(isUsageError(error)).toBe(true);
    expect((error as Error).message).toContain('workloads');
    expect((error as Error).message).toContain('timeScale');
  });

  it('reports a busy port as a usage error', async () => {
    const first = await startSimulator({ workloads: 5 });
    try {
      const port = Number(new URL(first.baseUrl).port);
      const error = await startSimulator({ workloads: 5, port }).catch((caught: unknown) => caught);
      expect(isUsageError(error)).toBe(true);
      expect((error as Error).message).toContain(`port ${port}`);
    } finally {
      await first.stop();
    }
  });
});
