import { loadSettings, type LoadedSettings } from '../config/load-settings.js';

/** Flags that several commands share and that override settings. */
export interface SettingsFlags {
  /** `--jobs DIR`: the folder of job definitions. */
  readonly jobs?: string;
}

/** Loads settings for a command, with its flags applied last (a flag beats everything). */
export function loadCommandSettings(flags: SettingsFlags = {}): Promise<LoadedSettings> {
  return loadSettings({
    overrides:
      flags.jobs === undefined
        ? []
        : [{ path: ['jobs', 'dir'], value: flags.jobs, source: 'flag --jobs' }],
  });
}
