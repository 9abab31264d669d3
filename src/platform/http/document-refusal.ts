/**
 * The platform's refusal of a GraphQL document it will not run: its message starts
 * `[QueryAnalysisError]` and, for a document its schema does not validate, lists the violations,
 * each ending with where it is in the document:
 *
 * ```
 * [QueryAnalysisError] [DLC Team] Encountered Client error (400) executing query with operations:
 * [] and variables {}. Error: Query does not pass validation. Violations:
 *
 * Cannot query field 'description' on type 'SlaDomain'. Did you mean to use an inline fragment on
 * 'GlobalSlaReply'? (line 6, column 7):
 *       description
 *       ^
 * ```
 *
 * Only the violations are kept: the rest echoes the request's variables, which are the caller's.
 */
export interface DocumentRefusal {
  /** Each violation's sentence with its line and column, without the quoted document text. */
  readonly violations: readonly string[];
  /** What the violations name: `Type.field`, `Type.field(argument)` or a type, in order, once each. */
  readonly names: readonly string[];
}

/** What to do when the account's GraphQL schema is not the one this paw was built against. */
export const SCHEMA_DIFFERS_FIX =
  "upgrade paw, or build it against the account's schema (npm run schema:refresh -- FILE, with " +
  "the account's SDL or an introspection answer, then rebuild); paw doctor names every difference";

const REFUSAL = /^\s*\[QueryAnalysisError\]/;
/** A violation's sentence, up to its location (`(line 6, column 7)`). */
const LOCATED = /[A-Z][^\n]*?\(line \d+, column \d+\)/g;
/** Longest violation kept, and how many: a message names a few, not a whole document's worth. */
const MAX_VIOLATION_LENGTH = 300;
const MAX_VIOLATIONS = 5;

/** What a refused document's message says, or undefined when the message is not a refusal. */
export function readDocumentRefusal(message: string): DocumentRefusal | undefined {
  if (!REFUSAL.test(message)) return undefined;
  const listed = /Violations:/.exec(message);
  const explained = /\bError:\s*/.exec(message);
  const body =
    listed !== null
      ? message.slice(listed.index + listed[0].length)
      : explained !== null
        ? message.slice(explained.index + explained[0].length)
        : message.replace(REFUSAL, '');
  const located = body.match(LOCATED) ?? [];
  // Without locations, violations are told apart by a blank line or a semicolon.
  const sentences = located.length > 0 ? located : firstLine(body).split(/;\s+/);
  const violations = sentences
    .map((sentence) => oneLine(sentence))
    .filter((sentence) => sentence !== '')
    .slice(0, MAX_VIOLATIONS)
    .map((sentence) =>
      sentence.length > MAX_VIOLATION_LENGTH
        ? `${sentence.slice(0, MAX_VIOLATION_LENGTH)}…`
        : sentence,
    );
  const names = [...new Set(violations.flatMap(namesIn))];
  return { violations: violations.length > 0 ? violations : ['the document was refused'], names };
}

/**
 * The schema names a violation is about, in the words of either validator the platform may run
 * (single quotes, as its own; double quotes, as graphql-js).
 */
function namesIn(violation: string): string[] {
  const quoted = `['"]([^'"]+)['"]`;
  const patterns: [RegExp, (match: RegExpExecArray) => string | undefined][] = [
    [
      new RegExp(`Cannot query field ${quoted} on type ${quoted}`, 'g'),
      (match) => `${match[2] ?? ''}.${match[1] ?? ''}`,
    ],
    [
      new RegExp(`Unknown argument ${quoted} on field ${quoted}`, 'g'),
      (match) => `${match[2] ?? ''}(${match[1] ?? ''})`,
    ],
    [new RegExp(`Unknown type ${quoted}`, 'g'), (match) => match[1]],
  ];
  const names: string[] = [];
  for (const [pattern, name] of patterns) {
    for (const match of violation.matchAll(pattern)) {
      const found = name(match);
      if (found !== undefined) names.push(found);
    }
  }
  return names;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
