import { afterEach, describe, expect, it } from 'vitest';
import type { OpsServer } from '../../src/ops/ops-server.js';
import { captureLogs } from '../testkit/log-capture.js';
import { holdSockets, probe } from '../testkit/held-sockets.js';
import { startTestOpsServer } from './test-ops-server.js';

/** The kubelet's address in these tests; the attackers use others of 127.0.0.0/8, or this one. */
const NODE = '127.0.0.1';
const PROBES = 40;
const PROBE_INTERVAL_MS = 100;

/**
 * Whatever other clients hold, the probes are answered: with Node's connection cap alone, one
 * client holding 128 idle sockets (re-opened as they close) left no `/healthz` answered, and the
 * kubelet would restart a healthy pod (issue 36). Default limits: 128 connections, 32 an address.
 */
describe('the ops server’s probes, while others hold every socket they can', () => {
  const logs = captureLogs();
  let server: OpsServer | undefined;
  const attackers: { stop: () => void }[] = [];
  afterEach(async () => {
    attackers.splice(0).forEach((attacker) => attacker.stop());
    await server?.close();
  });

  it('answers /healthz while one address holds 160 sockets', async () => {
    server = await startTestOpsServer('probe-one-address', {}, logs.logger);
    const attacker = holdSockets(server.url, 160, '127.0.0.2');
    attackers.push(attacker);
    const result = await probe(`${server.url}/healthz`, NODE, PROBES, PROBE_INTERVAL_MS);
    expect(attacker.opened(), 'the attacker kept re-opening').toBeGreaterThan(160);
    expect(result.answered, result.statuses.join(' ')).toBeGreaterThanOrEqual(PROBES * 0.9);
    expect(logs.text()).toMatch(/closed connections beyond its budget/);
  });

  it('answers /healthz from the very address that holds 160 sockets (a sidecar, a port-forward)', async () => {
    server = await startTestOpsServer('probe-same-address', {}, logs.logger);
    const attacker = holdSockets(server.url, 160, NODE);
    attackers.push(attacker);
    const result = await probe(`${server.url}/healthz`, NODE, PROBES, PROBE_INTERVAL_MS);
    expect(result.answered, result.statuses.join(' ')).toBeGreaterThanOrEqual(PROBES * 0.9);
  });

  it('answers /healthz and /readyz while ten addresses hold 16 sockets each (160 > 128)', async () => {
    server = await startTestOpsServer('probe-many-addresses', {}, logs.logger);
    for (let index = 2; index < 12; index += 1) {
      attackers.push(holdSockets(server.url, 16, `127.0.0.${index}`));
    }
    const health = await probe(`${server.url}/healthz`, NODE, PROBES / 2, PROBE_INTERVAL_MS);
    const ready = await probe(`${server.url}/readyz`, NODE, PROBES / 2, PROBE_INTERVAL_MS);
    const answered = health.answered + ready.answered;
    expect(answered, [...health.statuses, ...ready.statuses].join(' ')).toBeGreaterThanOrEqual(
      PROBES * 0.9,
    );
  });
});
