import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../shared/usage-error.js';
import { describeIssues, formatPath, readYamlFile } from '../shared/yaml-file.js';
import { ENVIRONMENT_OVERRIDES, parseEnvironmentValue } from './environment-overrides.js';
import { settingsSchema, type Settings } from './settings-schema.js';

const SETTINGS_FILE_NAME = 'paw.yaml';

/** Secrets a settings file must not hold (it is shared, versioned, readable): where they go instead. */
const SECRETS_KEPT_OUT_OF_FILES: ReadonlyArray<{ path: readonly string[]; instead: string }> = [
  {
    path: ['platform', 'clientSecret'],
    instead: 'set PAW_CLIENT_SECRET or use a credentials file (platform.credentialsFile)',
  },
  { path: ['platform', 'oauth', 'clientSecret'], instead: 'set PAW_OAUTH_CLIENT_SECRET' },
  { path: ['platform', 'personalAccessToken', 'clientSecret'], instead: 'set PAW_PAT_SECRET' },
  {
    path: ['redis', 'password'],
    instead: 'set PAW_REDIS_PASSWORD or redis.passwordFile (a file only paw can read)',
  },
  {
    path: ['redis', 'sentinel', 'password'],
    instead: 'set PAW_REDIS_SENTINEL_PASSWORD or redis.sentinel.passwordFile',
  },
];

export interface LoadSettingsOptions {
  /** The environment; `process.env` by default. This is the one place paw reads it. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Working directory that relative paths are resolved against. */
  readonly cwd?: string;
  /**
   * Values from command-line flags (e.g. `--credentials FILE`), applied last: a flag beats an
   * environment variable, which beats the file, which beats the default.
   */
  readonly overrides?: ReadonlyArray<{
    readonly path: readonly string[];
    readonly value: unknown;
    readonly source: string;
  }>;
}

/** Settings plus where they came from, for `--help` texts and error messages. */
export interface LoadedSettings {
  readonly settings: Settings;
  /** The YAML file that was read, if there was one. */
  readonly file: string | undefined;
  /**
   * Whether a setting was given (by the file, a variable or a flag) rather than defaulted, e.g.
   * so that a command can pick its own default level for `log.level`.
   */
  readonly isExplicit: (path: readonly string[]) => boolean;
}

/**
 * Reads `config/paw.yaml` (or `$PAW_CONFIG_DIR/paw.yaml`; a missing file means all defaults),
 * applies `PAW_*` environment overrides and command-line overrides, validates the result once
 * and freezes it. Any problem is a {@link UsageError} naming the file and line or the variable,
 * the path of the setting, and what would be valid.
 */
export async function loadSettings(options: LoadSettingsOptions = {}): Promise<LoadedSettings> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const configDirFromEnv = env['PAW_CONFIG_DIR'];
  const configDir = resolve(cwd, configDirFromEnv ?? 'config');
  const file = join(configDir, SETTINGS_FILE_NAME);

  let raw: Record<string, unknown> = {};
  let locate: (path: readonly PropertyKey[]) => string = () => 'defaults';
  let fileRead: string | undefined;
  if (existsSync(file)) {
    const documents = await readYamlFile(file);
    const [document, extra] = documents;
    if (extra !== undefined) {
      throw new UsageError(`${file}: holds more than one YAML document; keep one`);
    }
    if (document !== undefined) {
      if (!isPlainObject(document.value)) {
        throw new UsageError(
          `${document.locate([])}: the settings file must be a mapping of sections`,
        );
      }
      for (const { path, instead } of SECRETS_KEPT_OUT_OF_FILES) {
        if (hasPath(document.value, path)) {
          throw new UsageError(
            `${document.locate(path)}: ${path.join('.')} does not belong in a file; ${instead}`,
          );
        }
      }
      raw = document.value;
      locate = document.locate;
    }
    fileRead = file;
  } else if (configDirFromEnv !== undefined) {
    throw new UsageError(
      `PAW_CONFIG_DIR=${configDirFromEnv}: ${file} does not exist; create it or unset PAW_CONFIG_DIR`,
    );
  }

  // Which source set each path, so an invalid value is reported where the user can fix it.
  const sources = new Map<string, string>();
  for (const override of ENVIRONMENT_OVERRIDES) {
    const text = env[override.variable];
    if (text === undefined || text === '') continue;
    setPath(raw, override.path, parseEnvironmentValue(text, override.parser));
    sources.set(override.path.join('.'), `environment variable ${override.variable}`);
  }
  for (const override of options.overrides ?? []) {
    setPath(raw, override.path, override.value);
    sources.set(override.path.join('.'), override.source);
  }

  const parsed = settingsSchema.safeParse(raw);
  if (!parsed.success) {
    const where = (path: readonly PropertyKey[]): string => sourceOf(path, sources) ?? locate(path);
    const problems = describeIssues(parsed.error.issues, where);
    throw new UsageError(`invalid settings:\n  ${problems.join('\n  ')}`);
  }

  const settings = parsed.data;
  // Paths written in the settings file are relative to its folder; paths from the environment,
  // flags or defaults are relative to the working directory (what a user typing them expects).
  const baseFor = (path: readonly string[]): string =>
    sources.has(path.join('.')) || !hasPath(raw, path) ? cwd : configDir;
  if (settings.platform.credentialsFile !== undefined) {
    settings.platform.credentialsFile = resolve(
      baseFor(['platform', 'credentialsFile']),
      settings.platform.credentialsFile,
    );
  }
  settings.jobs.dir = resolve(baseFor(['jobs', 'dir']), settings.jobs.dir);
  const isExplicit = (path: readonly string[]): boolean =>
    sources.has(path.join('.')) || hasPath(raw, path);
  return { settings: deepFreeze(settings), file: fileRead, isExplicit };
}

function sourceOf(path: readonly PropertyKey[], sources: Map<string, string>): string | undefined {
  for (let depth = path.length; depth > 0; depth--) {
    const source = sources.get(path.slice(0, depth).map(String).join('.'));
    if (source !== undefined) return source;
  }
  return undefined;
}

function hasPath(value: Record<string, unknown>, path: readonly string[]): boolean {
  let node: unknown = value;
  for (const key of path) {
    if (!isPlainObject(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (isPlainObject(next)) {
      node = next;
    } else {
      const created: Record<string, unknown> = {};
      node[key] = created;
      node = created;
    }
  }
  const last = path.at(-1);
  if (last === undefined) throw new Error(`empty settings path for ${formatPath(path)}`);
  node[last] = value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    // A Secret keeps its value in a private field; freezing it is harmless but its prototype
    // methods must stay callable, so only plain data is walked.
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
