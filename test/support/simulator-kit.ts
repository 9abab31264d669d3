import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import { startSimulator, type SimulatorHandle } from '../../src/simulator/simulator.js';

/** A simulator for a test, with a private folder holding its admin credentials file. */
export interface SimulatorKit {
  readonly sim: SimulatorHandle;
  /** A folder of the kit's own (under the system's temporary folder), removed by `close()`. */
  readonly dir: string;
  /** The admin service account's credentials, as the platform hands them out (mode 0600). */
  readonly credentialsFile: string;
  /** Stops the simulator and removes `dir`. */
  readonly close: () => Promise<void>;
}

/**
 * The one way tests (and the chaos suite) start the platform simulator: small and unthrottled
 * by default (40 workloads, no rate limit), with its credentials written where `paw` reads them
 * (`PAW_CREDENTIALS_FILE` or `platform.credentialsFile`). Free of Vitest.
 */
export async function startSimulatorKit(
  options: SimulatorOptionsInput = {},
  label = 'sim',
): Promise<SimulatorKit> {
  const sim = await startSimulator({
    workloads: 40,
    rateLimit: { requestsPerSecond: 0 },
    ...options,
  });
  const dir = await mkdtemp(join(tmpdir(), `paw-${label}-`));
  const credentialsFile = join(dir, 'sa.json');
  await writeFile(credentialsFile, JSON.stringify(sim.credentials, null, 2), { mode: 0o600 });
  return {
    sim,
    dir,
    credentialsFile,
    close: async () => {
      await sim.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
