import { readFile } from 'node:fs/promises';
import { LineCounter, parseAllDocuments, isNode, type Document } from 'yaml';
import type { z } from 'zod';
import { UsageError } from '../errors/usage-error.js';

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
export interface YamlPosition {
  readonly line: number;
  readonly column: number;
}

/**
 * Reads a YAML file (one or several `---`-separated documents). Syntax errors become a
 * {@link UsageError} that names the file, the line and the column.
 */
export async function readYamlFile(file: string): Promise<YamlDocument[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot be read (${code ?? 'error'})`,
      { cause: error },
    );
  }
  return parseYaml(text, file);
}

/** Parses YAML text; `file` is only used in messages. */
export function parseYaml(text: string, file: string): YamlDocument[] {
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
      value: document.toJS() as unknown,
      locate: (path) => {
        const position = positionIn(document, lineCounter, path);
        return position === undefined ? file : `${file}:${position.line}:${position.column}`;
      },
      position: (path) => positionIn(document, lineCounter, path),
    });
  }
  return result;
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
