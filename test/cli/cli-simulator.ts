import type { SimulatorHandle } from '../../src/simulator/simulator.js';
import { startSimulatorKit, type SimulatorKit } from '../testkit/simulator-kit.js';
import type { SimulatorOptionsInput } from '../../src/simulator/options.js';
import type { SimulatorFixtures } from '../../src/simulator/fixtures.js';
import { runPaw, type PawProcessOptions, type PawResult } from '../testkit/paw-process.js';

/** An in-process simulator, its credentials file in a working folder, and `paw` runs against it. */
export interface CliSimulator {
  readonly sim: SimulatorHandle;
  readonly fixtures: SimulatorFixtures;
  readonly dir: string;
  readonly credentialsFile: string;
  /** `paw ...args` with PAW_CREDENTIALS_FILE set (unless `env` overrides it). */
  paw(args: readonly string[], options?: Partial<PawProcessOptions>): Promise<PawResult>;
  stats(): Promise<{ byOperation: Record<string, number>; liveSessions: number }>;
  /** A call to the simulator's `/_sim` controls (the kit's). */
  readonly control: SimulatorKit['control'];
  close(): Promise<void>;
}

export async function startCliSimulator(
  options: SimulatorOptionsInput = {},
): Promise<CliSimulator> {
  const { sim, dir, credentialsFile, control, close } = await startSimulatorKit(options, 'cli');
  return {
    sim,
    fixtures: sim.fixtures(),
    dir,
    credentialsFile,
    paw: (args, runOptions = {}) =>
      runPaw(args, {
        cwd: dir,
        ...runOptions,
        env: { PAW_CREDENTIALS_FILE: credentialsFile, ...runOptions.env },
      }),
    stats: async () => sim.stats(),
    control,
    close,
  };
}

/** Parses a command's --json output, failing with its stderr when it is not JSON. */
export function json<T = unknown>(result: PawResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `not JSON (exit ${String(result.code)}): ${result.stdout}\nstderr: ${result.stderr}`,
    );
  }
}
