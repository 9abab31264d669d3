import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSettings } from '../../src/config/load-settings.js';
import type { Settings } from '../../src/config/settings-schema.js';
import type { RequestGate } from '../../src/platform/rate-limit/request-gate.js';
import { createPlatformClient, type PlatformClient } from '../../src/platform/platform-client.js';
import type { SimulatorHandle } from '../../src/simulator/simulator.js';
import { startSimulatorKit, type SimulatorKit } from '../testkit/simulator-kit.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import { captureLogs, type LogCapture } from '../testkit/log-capture.js';

interface ClientOptions {
  /** PAW_* variables on top of PAW_CREDENTIALS_FILE (pass `PAW_CREDENTIALS_FILE: ''` to drop it). */
  readonly env?: Readonly<Record<string, string>>;
  /** config/paw.yaml content. */
  readonly yaml?: string;
  readonly requestGate?: RequestGate;
  readonly now?: () => number;
  /** Another log capture than the kit's. */
  readonly logs?: LogCapture;
}

/** A simulator, a credentials file for its admin account, a debug log capture, and clients. */
export interface PlatformTestKit {
  readonly sim: SimulatorHandle;
  readonly dir: string;
  readonly credentialsFile: string;
  readonly logs: LogCapture;
  settings(options?: ClientOptions): Promise<Settings>;
  client(options?: ClientOptions): Promise<PlatformClient>;
  /** A call to the simulator's `/_sim` controls (the kit's). */
  readonly control: SimulatorKit['control'];
  /** Every secret and token the simulator ever issued. */
  issuedSecrets(): string[];
  close(): Promise<void>;
}

/**
 * Starts a simulator for a test file (fast defaults: few workloads, no rate limit, quick jobs)
 * and writes its admin credentials file into a temporary folder, as a user would have it.
 */
export async function startPlatformTestKit(
  options: SimulatorOptionsInput = {},
): Promise<PlatformTestKit> {
  const kit = await startSimulatorKit({ workloads: 60, ...options }, 'platform');
  const { sim, dir, credentialsFile } = kit;
  const logs = captureLogs('debug');
  const clients: PlatformClient[] = [];

  const settings = async (clientOptions: ClientOptions = {}): Promise<Settings> => {
    const cwd = await mkdtemp(join(dir, 'cwd-'));
    if (clientOptions.yaml !== undefined) {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(cwd, 'config'));
      await writeFile(join(cwd, 'config', 'paw.yaml'), clientOptions.yaml);
    }
    const env = { PAW_CREDENTIALS_FILE: credentialsFile, ...clientOptions.env };
    return (await loadSettings({ env, cwd })).settings;
  };

  return {
    sim,
    dir,
    credentialsFile,
    logs,
    settings,
    client: async (clientOptions = {}) => {
      const client = await createPlatformClient({
        settings: await settings(clientOptions),
        logger: (clientOptions.logs ?? logs).logger,
        ...(clientOptions.requestGate === undefined
          ? {}
          : { requestGate: clientOptions.requestGate }),
        ...(clientOptions.now === undefined ? {} : { now: clientOptions.now }),
      });
      clients.push(client);
      return client;
    },
    control: kit.control,
    issuedSecrets: () => Object.values(sim.issuedSecrets()).flat(),
    close: async () => {
      await Promise.all(clients.map((client) => client.close()));
      await kit.close();
    },
  };
}
