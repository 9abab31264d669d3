import { readFile } from 'node:fs/promises';
import {
  buildClientSchema,
  getIntrospectionQuery,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { documentFacts } from '../../platform/graphql/graphql-client.js';
import { readPublishedSchema } from '../../platform/graphql/schema/schema-subset.js';
import { isPlatformError } from '../../platform/http/platform-errors.js';
import { check, type CheckResult } from './doctor-check.js';
import type { DoctorContext } from './doctor-context.js';
import { JOB_KIND_NEEDS } from './job-kind-needs.js';

/** The standard introspection query, without descriptions (the answer is large enough). */
const INTROSPECTION = parse(getIntrospectionQuery({ descriptions: false }));

/**
 * The account's own GraphQL schema against every document paw would send for each job kind:
 * introspected from the platform, or read from `--schema FILE` (SDL or a saved introspection
 * answer). A document the account's schema refuses is named with each field, argument or type
 * that differs: a finding about the platform's schema, not the account's roles, with a fix of
 * its own.
 */
export async function schemaChecks(context: DoctorContext): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const push = (result: CheckResult): void => {
    context.report(result);
    results.push(result);
  };
  const source = await accountSchema(context);
  if ('problem' in source) {
    push(source.problem);
    return results;
  }
  const api = context.settings.platform.api;
  for (const kind of context.kinds) {
    const documents = JOB_KIND_NEEDS[kind].documents;
    const differences = documents.flatMap((document) => differencesOf(source.schema, document));
    const id = `graphql.schema.${kind}`;
    const title = `paw's GraphQL documents for ${kind} jobs against ${source.name}`;
    // Rotation works through GraphQL whatever platform.api says.
    const blocks = api === 'graphql' || kind === 'rotate-secret';
    push(
      differences.length === 0
        ? check(id, title, 'ok', `all ${documents.length} documents are valid`, { blocks })
        : check(
            id,
            title,
            'fail',
            `${differences.length} difference(s): ${differences.join('; ')}`,
            {
              blocks,
              fix:
                "the platform's schema differs from the published one this paw was built " +
                'against (src/platform/graphql/schema/platform-schema.graphql); no role fixes ' +
                'it. Run a paw whose schema matches the platform (npm run schema:refresh -- ' +
                'FILE with the account schema, then rebuild), or report the difference' +
                (kind === 'rotate-secret'
                  ? ''
                  : '; until then use platform.api: rest if its checks pass'),
            },
          ),
    );
  }
  return results;
}

/** What the account's schema refuses in one document, each naming the document. */
function differencesOf(schema: GraphQLSchema, document: DocumentNode): string[] {
  const name = documentFacts(document).operationName;
  return validate(schema, document).map((error) => `${name}: ${error.message}`);
}

async function accountSchema(
  context: DoctorContext,
): Promise<
  { readonly schema: GraphQLSchema; readonly name: string } | { readonly problem: CheckResult }
> {
  const file = context.options.schemaFile;
  if (file !== undefined) {
    try {
      return { schema: readPublishedSchema(await readFile(file, 'utf8')), name: file };
    } catch (error) {
      return {
        problem: check('graphql.schema', `the schema in ${file}`, 'fail', messageOf(error), {
          blocks: false,
          fix: 'give --schema an SDL file or the JSON answer of an introspection query',
        }),
      };
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
    };
  }
}

function messageOf(error: unknown): string {
  if (isPlatformError(error)) return error.platformMessage;
  return error instanceof Error ? error.message : String(error);
}
