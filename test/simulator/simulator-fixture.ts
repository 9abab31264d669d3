import type { SimulatorHandle } from '../../src/simulator/simulator.js';
import { startSimulatorKit } from '../testkit/simulator-kit.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import type { SimulatorFixtures } from '../../src/simulator/fixtures.js';
import { call, type CallOptions, type HttpResult } from './http.js';

/** A simulator started for a test file, with helpers bound to it. */
export interface TestSimulator {
  readonly sim: SimulatorHandle;
  /** Stops the simulator and removes its folder (the kit's). */
  readonly close: () => Promise<void>;
  readonly fixtures: SimulatorFixtures;
  /** A fresh access token for the admin service account (or the read-only one). */
  token(account?: 'admin' | 'readOnly'): Promise<string>;
  /** A call relative to `{base_url}`. */
  api(method: string, path: string, options?: CallOptions): Promise<HttpResult>;
  /** A REST call relative to `{base_url}/api/rest` with an admin token. */
  rest(
    method: string,
    path: string,
    options?: Omit<CallOptions, 'token'> & { token?: string },
  ): Promise<HttpResult>;
}

/** Small, fast defaults for tests: few workloads, no rate limit. */
export async function startTestSimulator(
  options: SimulatorOptionsInput = {},
): Promise<TestSimulator> {
  const kit = await startSimulatorKit({ workloads: 60, ...options }, 'simulator');
  const { sim } = kit;
  const fixtures = sim.fixtures();
  const api = (method: string, path: string, callOptions?: CallOptions) =>
    call(method, `${sim.baseUrl}${path}`, callOptions);
  const token = async (account: 'admin' | 'readOnly' = 'admin'): Promise<string> => {
    const credentials = sim.fixtures().serviceAccounts[account];
    const response = await api('POST', '/api/client_token', {
      json: { client_id: credentials.client_id, client_secret: credentials.client_secret },
    });
    if (response.status !== 200)
      throw new Error(`token request failed: ${response.status} ${response.text}`);
    return (response.body as { access_token: string }).access_token;
  };
  let adminToken: string | undefined;
  return {
    sim,
    close: kit.close,
    fixtures,
    token,
    api,
    rest: async (method, path, callOptions = {}) => {
      adminToken ??= await token('admin');
      return api(method, `/api/rest${path}`, { token: adminToken, ...callOptions });
    },
  };
}
