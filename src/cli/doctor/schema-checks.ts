import {
  buildClientSchema,
  getIntrospectionQuery,
  parse,
  validate,
  validateSchema,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import type { JobKind } from '../../definitions/job-definition.js';
import { documentFacts } from '../../platform/graphql/graphql-client.js';
import { platformSchema } from '../../platform/graphql/schema/platform-schema.js';
import { readPublishedSchema } from '../../platform/graphql/schema/schema-subset.js';
import { SCHEMA_DIFFERS_FIX } from '../../platform/http/document-refusal.js';
import { readCappedFile, type FileCap } from '../../shared/read-capped-file.js';
import { DocumentRefusedError, isPlatformError } from '../../platform/http/platform-errors.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';
import { harmlessVariables } from './harmless-variables.js';
import { JOB_KIND_NEEDS } from './job-kind-needs.js';

/**
 * The largest schema file `--schema` reads. The published SDL is 1.9 MiB; the same schema saved
 * as an introspection answer with descriptions and two-space indentation is 26.3 MiB (graphql's
 * introspectionFromSchema of the published SDL, JSON.stringify'd). 32 MiB takes either
 * with room for the schema to grow; a larger file is not an account's schema, and parsing one
 * costs tens of seconds and gigabytes (a 44 MB SDL: 55 s and 3.5 GB).
 */
const SCHEMA_FILE_CAP: FileCap = {
  maxBytes: 32 * 1024 * 1024,
  what: 'a schema file',
  fix: "give --schema the account's SDL or the JSON answer of one introspection query",
};

/** How many of an invalid schema's problems a check names (the rest are counted). */
const SCHEMA_PROBLEMS_NAMED = 5;

/** The standard introspection query, without descriptions (the answer is large enough). */
const INTROSPECTION = parse(getIntrospectionQuery({ descriptions: false }));

/**
 * The account's own GraphQL schema against every document paw would send for each job kind:
 * introspected from the platform, or read from `--schema FILE` (SDL or a saved introspection
 * answer). A document the account's schema refuses is named with each field, argument or type
 * that differs: a finding about the platform's schema, not the account's roles, with a fix of
 * its own. A platform that answers no introspection is asked instead: each document is sent
 * about an object that does not exist (harmless-variables.ts), and one it refuses before running
 * (`[QueryAnalysisError]`) is named with what its violations name.
 */
export async function schemaChecks(context: DoctorContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const push = (result: CheckResult): void => {
    context.report(result);
    results.push(result);
  };
  const source = validSchema(await accountSchema(context));
  if ('problem' in source) {
    push(source.problem);
    if (source.askPlatform) {
      for (const kind of context.kinds) push(await askedCheck(context, kind));
    }
    return results;
  }
  for (const kind of context.kinds) {
    const documents = JOB_KIND_NEEDS[kind].documents;
    const differences = documents.flatMap((document) => differencesOf(source.schema, document));
    push(
      verdict(
        context,
        kind,
        `paw's GraphQL documents for ${kind} jobs against ${source.name}`,
        documents.length,
        differences,
      ),
    );
  }
  return results;
}

/** `graphql.schema.<kind>`: the documents' differences from the account's schema, if any. */
function verdict(
  context: DoctorContext,
  kind: JobKind,
  title: string,
  documents: number,
  differences: readonly string[],
): CheckResult {
  const id = `graphql.schema.${kind}`;
  // Rotation works through GraphQL whatever platform.api says.
  const blocks = context.settings.platform.api === 'graphql' || kind === 'rotate-secret';
  if (differences.length === 0) {
    return check(id, title, 'ok', `all ${documents} documents are valid`, { blocks });
  }
  return check(
    id,
    title,
    'fail',
    `${differences.length} difference(s): ${differences.join('; ')}`,
    {
      blocks,
      fix:
        "the platform's schema differs from the published one this paw was built against " +
        '(src/platform/graphql/schema/platform-schema.graphql); no role fixes it: ' +
        SCHEMA_DIFFERS_FIX +
        ', or report the difference' +
        (kind === 'rotate-secret' ? '' : '; until then use platform.api: rest if its checks pass'),
    },
  );
}

/**
 * The kind's documents as the platform answers them, each about an object that does not exist:
 * a document it refuses before running is a difference, named by its violations; any other
 * answer (found nothing, refused the made-up input or the account's rights) means it was
 * accepted. Failures that say nothing about the document (no connection) make it a warning.
 */
async function askedCheck(context: DoctorContext, kind: JobKind): Promise<CheckResult> {
  const documents = JOB_KIND_NEEDS[kind].documents;
  const differences: string[] = [];
  const unanswered: string[] = [];
  for (const document of documents) {
    const name = documentFacts(document).operationName;
    try {
      await context.client.graphql.client.requestUnchecked(
        document,
        harmlessVariables(platformSchema(), document),
        { signal: context.signal },
      );
    } catch (error) {
      if (error instanceof DocumentRefusedError) {
        differences.push(`${name}: ${error.violations.join(' ')}`);
      } else if (isPlatformError(error) && UNANSWERED.has(error.kind)) {
        unanswered.push(`${name} (${error.platformMessage})`);
      } else if (!isPlatformError(error)) {
        throw error;
      }
    }
  }
  const title = `paw's GraphQL documents for ${kind} jobs, as the platform answers them`;
  if (differences.length === 0 && unanswered.length > 0) {
    return check(
      `graphql.schema.${kind}`,
      title,
      'warn',
      `the platform did not answer ${unanswered.join(', ')}: those documents were not checked`,
      { blocks: false, fix: 'run paw doctor again, or pass --schema FILE' },
    );
  }
  return verdict(context, kind, title, documents.length, differences);
}

/** Failures that say nothing about whether the platform accepts a document. */
const UNANSWERED: ReadonlySet<string> = new Set([
  'authentication',
  'rate_limited',
  'unavailable',
  'timeout',
  'connection',
  'protocol',
]);

/** What the account's schema refuses in one document, each naming the document. */
function differencesOf(schema: GraphQLSchema, document: DocumentNode): string[] {
  const name = documentFacts(document).operationName;
  return validate(schema, document).map((error) => `${name}: ${error.message}`);
}

/**
 * The schema, or a failed check naming what makes it invalid. A schema is read as it is (SDL is
 * built assuming it valid), and graphql's `validate` throws on an invalid one: without this,
 * one bad schema file would throw through every comparison and lose the whole report.
 */
function validSchema(source: Awaited<ReturnType<typeof accountSchema>>): typeof source {
  if ('problem' in source) return source;
  const problems = validateSchema(source.schema).map((error) => error.message);
  if (problems.length === 0) return source;
  const named = problems.slice(0, SCHEMA_PROBLEMS_NAMED).join('; ');
  const more = problems.length - SCHEMA_PROBLEMS_NAMED;
  return {
    problem: check(
      'graphql.schema',
      source.name,
      'fail',
      `not a valid GraphQL schema: ${named}${more > 0 ? ` (and ${more} more)` : ''}`,
      {
        blocks: false,
        fix: "give --schema the account's SDL or the JSON answer of one introspection query",
      },
    ),
    askPlatform: false,
  };
}

async function accountSchema(
  context: DoctorContext,
): Promise<
  | { readonly schema: GraphQLSchema; readonly name: string }
  | { readonly problem: CheckResult; readonly askPlatform: boolean }
> {
  const file = context.options.schemaFile;
  if (file !== undefined) {
    const fail = (detail: string) => ({
      problem: check('graphql.schema', `the schema in ${file}`, 'fail', detail, {
        blocks: false,
        fix: 'give --schema an SDL file or the JSON answer of an introspection query',
      }),
      askPlatform: false,
    });
    try {
      return {
        schema: readPublishedSchema(await readCappedFile(file, SCHEMA_FILE_CAP)),
        name: file,
      };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return fail(code === undefined ? messageOf(error) : `${file} cannot be read (${code})`);
    }
  }
  try {
    // The whole schema: the published one's answers 9.4 MiB without descriptions.
    const data = await context.client.graphql.client.requestUnchecked(
      INTROSPECTION,
      {},
      { answer: 'document', signal: context.signal },
    );
    return { schema: buildClientSchema(data as IntrospectionQuery), name: "the account's schema" };
  } catch (error) {
    return {
      problem: check(
        'graphql.schema',
        "the account's GraphQL schema",
        'warn',
        `the platform did not answer introspection (${messageOf(error)}): paw's documents were not compared with the account's schema`,
        {
          blocks: false,
          fix: "save the account's schema (SDL from the API reference, or an introspection answer) and run paw doctor --schema FILE",
        },
      ),
      askPlatform: true,
    };
  }
}

function messageOf(error: unknown): string {
  if (isPlatformError(error)) return error.platformMessage;
  return error instanceof Error ? error.message : String(error);
}
