import { LineCounter, parseAllDocuments, isNode, type Document } from 'yaml';
import type { z } from 'zod';
import { UsageError } from './usage-error.js';
import { readNamedFile, type FileCap } from './read-capped-file.js';

/** One YAML document of a file, with what is needed to point at a line in it. */
export interface YamlDocument {
  readonly file: string;
  /** 0-based position of the document in a multi-document file (`---` separated). */
  readonly index: number;
  readonly value: unknown;
  /** `file:line:column` of the node at `path`, or of the nearest ancestor that exists. */
  readonly locate: (path: readonly PropertyKey[]) => string;
  /** Line and column (1-based) of the node at `path`, or of the nearest ancestor that exists. */
  readonly position: (path: readonly PropertyKey[]) => YamlPosition | undefined;
}

/** A 1-based line and column in a YAML file. */
interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

/**
 * The largest YAML file paw reads (job definitions, settings, simulator files). A thousand
 * definitions take a few hundred kilobytes; a bigger file is a mistake or an attack, and parsing
 * one costs memory and event-loop time in proportion.
 */
const YAML_FILE_CAP: FileCap = {
  maxBytes: 4 * 1024 * 1024,
  what: 'a YAML file',
  fix: 'split it into several files',
};

/**
 * How many times a document may use an alias (`*name`). Definitions have no need for many;
 * nested aliases that expand exponentially (an "alias bomb") stop here instead of eating memory.
 */
const MAX_YAML_ALIAS_COUNT = 100;

/**
 * Reads a YAML file (one or several `---`-separated documents). Syntax errors, a file over
 * {@link YAML_FILE_CAP} and an alias bomb become a {@link UsageError} that names the file
 * (and, for syntax, the line and the column).
 */
export async function readYamlFile(file: string): Promise<YamlDocument[]> {
  const text = await readNamedFile(file, YAML_FILE_CAP, (code) =>
    code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot be read (${code ?? 'error'})`,
  );
  return parseYaml(text, file);
}

/** Parses YAML text; `file` is only used in messages. */
function parseYaml(text: string, file: string): YamlDocument[] {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  if (!Array.isArray(documents)) return []; // an empty stream
  const result: YamlDocument[] = [];
  for (const [index, document] of documents.entries()) {
    const [first] = document.errors;
    if (first !== undefined) {
      const { line, col } = lineCounter.linePos(first.pos[0]);
      const where = `${file}:${line}:${col}`;
      throw new UsageError(`${where}: invalid YAML: ${first.message.split('\n')[0] ?? ''}`);
    }
    // An empty document (a trailing `---`) holds nothing to validate.
    if (document.contents === null) continue;
    result.push({
      file,
      index,
      value: valueOf(document, file),
      locate: (path) => {
        const position = positionIn(document, lineCounter, path);
        return position === undefined ? file : `${file}:${position.line}:${position.column}`;
      },
      position: (path) => positionIn(document, lineCounter, path),
    });
  }
  return result;
}

function valueOf(document: Document, file: string): unknown {
  try {
    return document.toJS({ maxAliasCount: MAX_YAML_ALIAS_COUNT }) as unknown;
  } catch (error) {
    // The yaml library throws a ReferenceError when aliases expand past maxAliasCount.
    if (!(error instanceof ReferenceError)) throw error;
    if (!error.message.startsWith('Excessive alias count')) {
      throw new UsageError(`${file}: invalid YAML: ${error.message}`);
    }
    throw new UsageError(
      `${file}: its aliases (*name) expand to more than ${MAX_YAML_ALIAS_COUNT} copies, which paw refuses as a resource exhaustion attack; write the values out or use fewer aliases`,
    );
  }
}

function positionIn(
  document: Document,
  lineCounter: LineCounter,
  path: readonly PropertyKey[],
): YamlPosition | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const node = document.getIn(path.slice(0, depth) as unknown[], true);
    if (isNode(node) && node.range) {
      const { line, col } = lineCounter.linePos(node.range[0]);
      return { line, column: col };
    }
  }
  return undefined;
}

/**
 * Turns zod issues into one message per problem: where it is (`file:line:col`), the path in
 * the document, what is wrong and, where zod knows it, what would be valid.
 */
export function describeIssues(
  issues: readonly z.core.$ZodIssue[],
  locate: (path: readonly PropertyKey[]) => string,
): string[] {
  return issues.map((issue) => {
    const path = issue.path.length === 0 ? '(top level)' : formatPath(issue.path);
    let hint = '';
    if (issue.code === 'invalid_value' && issue.values.length > 0) {
      hint = `; valid values: ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    } else if (issue.code === 'unrecognized_keys') {
      hint = '; remove it or check its spelling';
    }
    return `${locate(issue.path)}: ${path}: ${issue.message}${hint}`;
  });
}

/** `a.b[2].c` */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else out += out === '' ? String(key) : `.${String(key)}`;
  }
  return out;
}
