import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { isUsageError, UsageError } from '../shared/usage-error.js';
import { closestMatch } from '../shared/closest-match.js';
import { formatPath, readYamlFile, type YamlDocument } from '../shared/yaml-file.js';
import { describeDefinitionIssue } from './describe-definition-issue.js';
import {
  InvalidDefinitionsError,
  displayPath,
  type DefinitionProblem,
} from './definition-problem.js';
import { DEFINITION_SCHEMAS, JOB_KINDS, isJobKind, type JobDefinition } from './job-definition.js';
import { sinkFolderProblem } from './sink-folder.js';
import { CALENDARS_FILE_NAMES, readCalendars, type CalendarsReport } from './calendars-file.js';
import type { Settings } from '../config/settings-schema.js';
import { Vocabulary } from '../platform/vocabulary/vocabulary.js';

/** How definitions are checked against the settings. */
export interface CheckOptions {
  /** The platform's words (`platform.vocabulary` added to paw's defaults). */
  readonly vocabulary?: Vocabulary;
}

/** The check options the settings give (the platform's words). */
export function checkOptionsFrom(settings: Pick<Settings, 'platform'>): CheckOptions {
  return { vocabulary: new Vocabulary(settings.platform.vocabulary) };
}

/** A valid definition and where it was written. */
export interface LoadedDefinition {
  readonly definition: JobDefinition;
  readonly file: string;
  /** Line of the definition's `id` (or of its first key). */
  readonly line: number | undefined;
}

/** Everything `paw validate` reports about a folder of definitions. */
export interface DefinitionsReport {
  readonly dir: string;
  readonly files: readonly string[];
  /** The definitions that are valid on their own (also when others are not). */
  readonly definitions: readonly LoadedDefinition[];
  readonly problems: readonly DefinitionProblem[];
  /** Legal but probably unintended (e.g. selecting workload types that cannot be snapshotted). */
  readonly warnings: readonly DefinitionProblem[];
  /** The folder holds no definition, valid or not: its one problem says so. */
  readonly empty: boolean;
}

const POINT_AT_FOLDER =
  'point PAW_JOBS_DIR (or jobs.dir in config/paw.yaml, or --jobs) at the folder of job definitions';
const FOLDER_FIX = `create it, or ${POINT_AT_FOLDER}`;

/**
 * Reads and checks every `*.yaml` / `*.yml` file directly in `dir` (each may hold several
 * `---`-separated definitions). Never throws for a problem in the definitions: every problem is
 * returned, located by file, line and path, with its fix.
 */
export async function checkDefinitions(
  dir: string,
  options: CheckOptions = {},
): Promise<DefinitionsReport> {
  const vocabulary = options.vocabulary ?? new Vocabulary();
  const folder = resolve(dir);
  const problems: DefinitionProblem[] = [];
  const warnings: DefinitionProblem[] = [];
  const definitions: LoadedDefinition[] = [];

  const files = await listDefinitionFiles(folder, problems);
  const calendars = await readCalendars(folder);
  problems.push(...calendars.problems);
  const seen = new Map<string, { file: string; line: number | undefined }>();
  for (const file of files) {
    let documents: YamlDocument[];
    try {
      documents = await readYamlFile(file);
    } catch (error) {
      if (!isUsageError(error)) throw error;
      problems.push(yamlSyntaxProblem(file, error.message));
      continue;
    }
    for (const document of documents) {
      const checked = checkDocument(document, vocabulary);
      const sink =
        checked.definition?.kind === 'rotate-secret' ? checked.definition.sink.file : undefined;
      const sinkProblem = sink === undefined ? undefined : await sinkFolderProblem(sink);
      if (sink !== undefined && sinkProblem !== undefined) {
        const position = document.position(['sink', 'file']);
        problems.push({
          file,
          line: position?.line,
          column: position?.column,
          path: 'sink.file',
          message: sinkProblem.message,
          fix: sinkProblem.fix,
        });
        continue;
      }
      problems.push(...checked.problems.sort(byPosition));
      warnings.push(...checked.warnings);
      if (checked.definition === undefined) continue;
      const calendarProblems = resolveCalendarNames(
        checked.definition,
        calendars,
        document.position,
        file,
      );
      if (calendarProblems.length > 0) {
        problems.push(...calendarProblems);
        continue;
      }
      const line = document.position(['id'])?.line;
      const earlier = seen.get(checked.definition.id);
      if (earlier !== undefined) {
        const position = document.position(['id']);
        problems.push({
          file,
          line: position?.line,
          column: position?.column,
          path: 'id',
          message: `${JSON.stringify(checked.definition.id)} is already the id of the definition at ${displayPath(earlier.file)}${earlier.line === undefined ? '' : `:${earlier.line}`}`,
          fix: 'give each definition a unique id',
        });
        continue;
      }
      seen.set(checked.definition.id, { file, line });
      definitions.push({ definition: checked.definition, file, line });
    }
  }
  // Nothing to schedule is never what was meant: an empty ConfigMap, a mount at the wrong path.
  const empty = definitions.length === 0 && problems.length === 0;
  if (empty) {
    problems.push({
      file: folder,
      path: '(folder)',
      message: 'holds no job definitions (no *.yaml file with one)',
      fix: `add one (docs/job-definitions.md), or ${POINT_AT_FOLDER}; on Kubernetes, check that the ConfigMap mounted there has keys ending in .yaml`,
    });
  }
  return { dir: folder, files, definitions, problems, warnings, empty };
}

/**
 * Loads the definitions in `dir` for a command that runs them. Throws
 * {@link InvalidDefinitionsError} (a usage error, exit code 2) listing every problem when any
 * definition is invalid: paw never runs a partly valid set.
 */
export async function loadDefinitions(
  dir: string,
  options: CheckOptions = {},
): Promise<readonly LoadedDefinition[]> {
  return validDefinitions(await checkDefinitions(dir, options));
}

/**
 * The definitions a scheduling process (`paw scheduler`, `paw start`) starts with: as
 * {@link loadDefinitions}, except that a folder holding none is not refused. The process starts
 * with nothing to schedule and says so (the returned problem; `/readyz`, the metrics), and a
 * reload picks the definitions up when they arrive (a ConfigMap filled in after the pods
 * started).
 */
export async function loadDefinitionsToSchedule(
  dir: string,
  options: CheckOptions = {},
): Promise<{
  readonly definitions: readonly LoadedDefinition[];
  readonly none?: DefinitionProblem;
}> {
  const report = await checkDefinitions(dir, options);
  const [none] = report.empty ? report.problems : [];
  return none === undefined ? { definitions: validDefinitions(report) } : { definitions: [], none };
}

function validDefinitions(report: DefinitionsReport): readonly LoadedDefinition[] {
  if (report.problems.length > 0) throw new InvalidDefinitionsError(report.problems);
  return Object.freeze(report.definitions.map((loaded) => deepFreeze(loaded)));
}

/** The definition with `id`; a usage error naming the known ids (and a close one) otherwise. */
export function findDefinition(
  definitions: readonly LoadedDefinition[],
  id: string,
  dir: string,
): LoadedDefinition {
  const found = definitions.find((loaded) => loaded.definition.id === id);
  if (found !== undefined) return found;
  const ids = definitions.map((loaded) => loaded.definition.id);
  const suggestion = closestMatch(id, ids);
  throw new UsageError(
    `no job definition has id ${JSON.stringify(id)} in ${dir}; ` +
      (suggestion === undefined
        ? ids.length === 0
          ? 'the folder holds none'
          : `known ids: ${ids.join(', ')}`
        : `did you mean ${JSON.stringify(suggestion)}?`),
  );
}

async function listDefinitionFiles(
  folder: string,
  problems: DefinitionProblem[],
): Promise<string[]> {
  try {
    const info = await stat(folder);
    if (!info.isDirectory()) {
      problems.push({
        file: folder,
        path: '(folder)',
        message: 'is not a folder',
        fix: FOLDER_FIX,
      });
      return [];
    }
  } catch {
    problems.push({ file: folder, path: '(folder)', message: 'does not exist', fix: FOLDER_FIX });
    return [];
  }
  const entries = await readdir(folder, { withFileTypes: true });
  const names = entries
    // `.`-prefixed entries are hidden, and kubelet's own (`..data`, `..2026_11_26_...`) too.
    .filter((entry) => !entry.name.startsWith('.'))
    .filter((entry) => /\.ya?ml$/i.test(entry.name))
    .filter((entry) => !CALENDARS_FILE_NAMES.includes(entry.name));
  const files: string[] = [];
  for (const entry of names) {
    const file = join(folder, entry.name);
    if (entry.isFile()) files.push(file);
    if (!entry.isSymbolicLink()) continue;
    const problem = await linkProblem(folder, file);
    if (problem === 'not a file') continue;
    if (problem === undefined) files.push(file);
    else problems.push(problem);
  }
  return files.sort();
}

/**
 * Whether the link `file` in `folder` may be read as a definition: a Kubernetes ConfigMap volume
 * holds nothing but links (`night.yaml -> ..data/night.yaml`, `..data -> ..2026_11_26_...`), so
 * a link is read when it ends at a file inside the folder. One that leads out of it is refused:
 * what the folder holds is what is reviewed and deployed as the definitions.
 */
async function linkProblem(
  folder: string,
  file: string,
): Promise<DefinitionProblem | 'not a file' | undefined> {
  let target: string;
  try {
    target = await realpath(file);
  } catch {
    const to = resolve(folder, await readlink(file));
    return {
      file,
      path: '(file)',
      message: `is a link to ${to}, which does not exist`,
      fix: 'correct or remove the link',
    };
  }
  if (!(await stat(target)).isFile()) return 'not a file';
  const inside = await realpath(folder);
  if (target.startsWith(`${inside}${sep}`)) return undefined;
  return {
    file,
    path: '(file)',
    message: `is a link to ${target}, outside ${folder}`,
    fix: 'paw reads definitions only from inside their folder: copy the file into it, or point PAW_JOBS_DIR (jobs.dir) at the folder that holds it',
  };
}

interface CheckedDocument {
  readonly definition?: JobDefinition;
  readonly problems: DefinitionProblem[];
  readonly warnings: DefinitionProblem[];
}

function checkDocument(document: YamlDocument, vocabulary: Vocabulary): CheckedDocument {
  const at = (path: readonly PropertyKey[], message: string, fix: string): DefinitionProblem => {
    const position = document.position(path);
    return {
      file: document.file,
      line: position?.line,
      column: position?.column,
      path: path.length === 0 ? '(definition)' : formatPath(path),
      message,
      fix,
    };
  };

  const value = document.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      problems: [
        at(
          [],
          'is not a mapping',
          'write each definition as keys and values (id, kind, schedule, ...), documents separated by ---',
        ),
      ],
      warnings: [],
    };
  }
  const kind = (value as Record<string, unknown>)['kind'];
  if (!isJobKind(kind)) {
    const suggestion = typeof kind === 'string' ? closestMatch(kind, JOB_KINDS) : undefined;
    return {
      problems: [
        at(
          ['kind'],
          kind === undefined ? 'is required' : `${JSON.stringify(kind)} is not a kind of job`,
          suggestion === undefined
            ? `use one of ${JOB_KINDS.map((name) => JSON.stringify(name)).join(', ')}`
            : `did you mean ${JSON.stringify(suggestion)}?`,
        ),
      ],
      warnings: [],
    };
  }

  const schema = DEFINITION_SCHEMAS[kind];
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) {
    const problems = result.error.issues.flatMap((issue) =>
      describeDefinitionIssue(issue, schema).map((described) =>
        at(described.path, described.message, described.fix),
      ),
    );
    return { problems, warnings: [] };
  }

  const definition: JobDefinition = result.data;
  const warnings: DefinitionProblem[] = [];
  if (definition.kind === 'snapshot') {
    const types = definition.targets.types ?? [];
    // A type word paw does not know would select nothing, silently, every night.
    const problems = types.flatMap((type, index) => {
      if (vocabulary.workloadKind(type) !== undefined) return [];
      const suggestion = closestMatch(type, vocabulary.knownKinds());
      return [
        at(
          ['targets', 'types', index],
          `${JSON.stringify(type)} is not a workload type paw knows`,
          (suggestion === undefined ? '' : `did you mean ${JSON.stringify(suggestion)}? `) +
            'Any spelling of a known kind works (VSPHERE_VM, VmwareVirtualMachine, MSSQL_DATABASE, Mssql, ...); ' +
            'a word the platform uses that paw does not know goes into platform.vocabulary.workloadTypes in config/paw.yaml',
        ),
      ];
    });
    if (problems.length > 0) return { problems, warnings: [] };
    const unsupported = types.filter((type) => vocabulary.snapshotDecision(type).action === 'skip');
    if (unsupported.length > 0) {
      warnings.push(
        at(
          ['targets', 'types'],
          `${unsupported.join(', ')} cannot be snapshotted on demand; such workloads will be recorded as skipped`,
          'select vSphere VMs (VSPHERE_VM) and SQL Server databases (MSSQL_DATABASE) only, unless the skipped records are what you want',
        ),
      );
    }
  }
  if (definition.kind === 'rotate-secret') {
    definition.sink.file = resolve(dirname(document.file), definition.sink.file);
  }
  const webhook = definition.notify?.webhook;
  if (webhook?.urlFile !== undefined) {
    webhook.urlFile = resolve(dirname(document.file), webhook.urlFile);
  }
  return { definition, problems: [], warnings };
}

/**
 * Replaces each calendar name in `schedule.skip` with the calendar (its name and days), so the
 * definition carries its dates wherever it goes (a run job, a backfill). Returns a problem for
 * each name the calendars file does not define.
 */
function resolveCalendarNames(
  definition: JobDefinition,
  calendars: CalendarsReport,
  position: YamlDocument['position'],
  file: string,
): DefinitionProblem[] {
  const skip = definition.schedule.skip;
  if (skip === undefined) return [];
  const problems: DefinitionProblem[] = [];
  definition.schedule.skip = skip.map((entry, index) => {
    if (typeof entry !== 'string' || /^\d/.test(entry)) return entry;
    const calendar = calendars.calendars.get(entry);
    if (calendar !== undefined) return { calendar: calendar.name, days: [...calendar.days] };
    const at = position(['schedule', 'skip', index]);
    const suggestion = closestMatch(entry, [...calendars.calendars.keys()]);
    problems.push({
      file,
      line: at?.line,
      column: at?.column,
      path: `schedule.skip[${index}]`,
      message: `${JSON.stringify(entry)} is not a calendar ${calendars.file === undefined ? '(the folder has no calendars.yaml)' : `of ${displayPath(calendars.file)}`}`,
      fix:
        suggestion === undefined
          ? `define it in calendars.yaml next to the definitions (calendars: { ${entry}: { days: [2026-12-25] } }), or write the dates here`
          : `did you mean ${JSON.stringify(suggestion)}?`,
    });
    return entry;
  });
  return problems;
}

function byPosition(a: DefinitionProblem, b: DefinitionProblem): number {
  return (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0);
}

function yamlSyntaxProblem(file: string, message: string): DefinitionProblem {
  // readYamlFile's message is `file:line:column: invalid YAML: what`.
  const match = /^(.*):(\d+):(\d+): (.*)$/s.exec(message);
  if (match === null) {
    const withoutFile = message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
    return { file, path: '(file)', message: withoutFile, fix: 'correct the file' };
  }
  return {
    file,
    line: Number(match[2]),
    column: Number(match[3]),
    path: '(file)',
    message: match[4] ?? message,
    fix: 'correct the YAML syntax there (indentation, quotes, brackets)',
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
