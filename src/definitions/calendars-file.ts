import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { isUsageError } from '../shared/usage-error.js';
import { formatPath, readYamlFile } from '../shared/yaml-file.js';
import type { DefinitionProblem } from './definition-problem.js';
import { describeDefinitionIssue } from './describe-definition-issue.js';
import { CALENDAR_NAME_PATTERN, skipDaysSchema } from './schedule-schema.js';

/**
 * The file of named calendars, next to the definitions: a change freeze, public holidays, any
 * set of days several definitions skip (`schedule.skip: [change-freeze]`). It is not a job
 * definition, so the definition loader leaves it out.
 */
export const CALENDARS_FILE_NAMES: readonly string[] = ['calendars.yaml', 'calendars.yml'];

const calendarsFileSchema = z.strictObject({
  calendars: z.record(
    z.string().regex(CALENDAR_NAME_PATTERN, {
      error: 'a calendar name is letters, digits, - and _, starting with a letter',
    }),
    z.strictObject({
      description: z.string().optional(),
      /** Local dates (`2026-12-25`) and ranges (`2026-12-20..2027-01-04`). */
      days: z.array(skipDaysSchema).min(1).max(1000),
    }),
  ),
});

/** A calendar of `calendars.yaml`. */
interface NamedCalendar {
  readonly name: string;
  readonly description?: string | undefined;
  readonly days: readonly string[];
}

/** What reading the calendars file found: its calendars (by name) and its problems. */
export interface CalendarsReport {
  /** The file read, when the folder has one. */
  readonly file: string | undefined;
  readonly calendars: ReadonlyMap<string, NamedCalendar>;
  readonly problems: readonly DefinitionProblem[];
}

/** Reads the calendars file of a definitions folder, if there is one. Never throws for its content. */
export async function readCalendars(folder: string): Promise<CalendarsReport> {
  const names = new Set(await readdir(folder).catch(() => [] as string[]));
  const name = CALENDARS_FILE_NAMES.find((candidate) => names.has(candidate));
  if (name === undefined) return { file: undefined, calendars: new Map(), problems: [] };
  const file = join(folder, name);
  const problems: DefinitionProblem[] = [];
  let documents;
  try {
    documents = await readYamlFile(file);
  } catch (error) {
    if (!isUsageError(error)) throw error;
    problems.push({ file, path: '(file)', message: error.message, fix: 'correct the file' });
    return { file, calendars: new Map(), problems };
  }
  if (documents.length !== 1) {
    problems.push({
      file,
      path: '(file)',
      message: `holds ${documents.length} documents`,
      fix: 'write one document: a "calendars" mapping of name to { days: [...] }',
    });
    return { file, calendars: new Map(), problems };
  }
  const [document] = documents;
  if (document === undefined) return { file, calendars: new Map(), problems };
  const result = calendarsFileSchema.safeParse(document.value, { reportInput: true });
  if (!result.success) {
    for (const issue of result.error.issues) {
      for (const described of describeDefinitionIssue(issue, calendarsFileSchema)) {
        const position = document.position(described.path);
        problems.push({
          file,
          line: position?.line,
          column: position?.column,
          path: formatPath(described.path),
          message: described.message,
          fix: described.fix,
        });
      }
    }
    return { file, calendars: new Map(), problems };
  }
  const calendars = new Map<string, NamedCalendar>();
  for (const [calendarName, calendar] of Object.entries(result.data.calendars)) {
    calendars.set(calendarName, { name: calendarName, ...calendar });
  }
  return { file, calendars, problems };
}
