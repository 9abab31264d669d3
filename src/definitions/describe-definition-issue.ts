import { z } from 'zod';
import { closestMatch } from '../shared/closest-match.js';
import { formatPath } from '../shared/yaml-file.js';

/** A zod issue turned into words: what is wrong at which path, and how to fix it. */
export interface DescribedIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly fix: string;
}

/** Examples shown when a required key is missing, by its dotted path. */
const EXAMPLES: Record<string, string> = {
  id: 'id: nightly-vms',
  kind: 'kind: snapshot',
  schedule: 'schedule: { cron: "0 1 * * *", timezone: Europe/Berlin }',
  'schedule.cron': 'cron: "0 1 * * *"',
  'schedule.duration': 'duration: 4h',
  targets: 'targets: { types: [VSPHERE_VM], namePattern: "prod-*" }',
  slaDomains: 'slaDomains: { names: [Gold] }',
  serviceAccount: 'serviceAccount: { clientId: "client|<uuid>" }',
  'serviceAccount.clientId': 'clientId: "client|<uuid>"',
  sink: 'sink: { file: /var/lib/paw/secrets/app.json }',
  'sink.file': 'file: /var/lib/paw/secrets/app.json',
};

/**
 * Describes one issue from parsing a definition with `schema` (parsed with `reportInput: true`,
 * so the offending value is known). `schema` is used to list the keys valid where an unknown key
 * was found.
 */
export function describeDefinitionIssue(
  issue: z.core.$ZodIssue,
  schema: z.ZodType,
): DescribedIssue[] {
  const path = issue.path;
  const dotted = formatPath(path);
  const leaf = path.at(-1);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) {
        const example = EXAMPLES[normalize(dotted)];
        return [
          {
            path,
            message: 'is required',
            fix: example === undefined ? `add ${String(leaf)}` : `add ${example}`,
          },
        ];
      }
      return [
        {
          path,
          message: `${issue.message.replace(/^Invalid input: /, '')} (got ${typeName(issue.input)})`,
          fix: `write ${article(issue.expected)} ${issue.expected} here`,
        },
      ];
    }
    case 'unrecognized_keys': {
      const known = keysAt(schema, path);
      return issue.keys.map((key) => {
        const suggestion = known === undefined ? undefined : closestMatch(key, known);
        const hint = hintForUnknownKey(key, dotted);
        return {
          path: [...path, key],
          message: `unknown key ${JSON.stringify(key)}`,
          fix:
            hint ??
            (suggestion === undefined
              ? `remove it${known === undefined ? '' : ` (known keys: ${known.join(', ')})`}`
              : `did you mean ${JSON.stringify(suggestion)}?`),
        };
      });
    }
    case 'invalid_value': {
      const values = issue.values.map((value) => JSON.stringify(value));
      const given = typeof issue.input === 'string' ? issue.input : undefined;
      const suggestion =
        given === undefined
          ? undefined
          : closestMatch(
              given,
              issue.values.filter((value): value is string => typeof value === 'string'),
            );
      return [
        {
          path,
          message: `${clip(JSON.stringify(issue.input) ?? String(issue.input))} is not valid here`,
          fix:
            suggestion === undefined
              ? `use ${values.length === 1 ? values[0] : `one of ${values.join(', ')}`}`
              : `did you mean ${JSON.stringify(suggestion)}? (valid: ${values.join(', ')})`,
        },
      ];
    }
    case 'too_small':
      return [
        {
          path,
          message: 'is empty',
          fix:
            issue.origin === 'array'
              ? 'list at least one value, or remove the key'
              : 'give a value',
        },
      ];
    case 'invalid_union':
      return [
        {
          path,
          message: `is neither a text nor a list of texts (got ${typeName(issue.input)})`,
          fix: 'write one value, or a list of values in [ ]',
        },
      ];
    case 'custom': {
      const fix = (issue.params as { fix?: unknown } | undefined)?.fix;
      return [{ path, message: issue.message, fix: typeof fix === 'string' ? fix : 'correct it' }];
    }
    default:
      return [{ path, message: issue.message, fix: 'correct the value' }];
  }
}

/** Known mistakes get a precise fix instead of "did you mean". */
function hintForUnknownKey(key: string, parent: string): string | undefined {
  if (key === 'keepForever' && parent === 'retention') {
    return 'write keepForever: true at the top level of the definition, instead of retention';
  }
  if (key === 'duration' && parent === 'schedule') {
    return 'only sla-window definitions have a duration; remove it';
  }
  if (/secret|password|token/i.test(key)) {
    return 'secrets never go in a job definition: remove it (rotate-secret writes the new secret to its sink)';
  }
  return undefined;
}

/** The keys of the object schema at `path` inside `schema`, if it is an object there. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let node: z.ZodType | undefined = unwrap(schema);
  for (const key of path) {
    if (node instanceof z.ZodObject) {
      const child: z.ZodType | undefined = (node.shape as Record<string, z.ZodType>)[String(key)];
      node = child === undefined ? undefined : unwrap(child);
    } else if (node instanceof z.ZodArray && typeof key === 'number') {
      node = unwrap(node.element as z.ZodType);
    } else {
      return undefined;
    }
  }
  return node instanceof z.ZodObject ? Object.keys(node.shape) : undefined;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let node = schema;
  for (;;) {
    if (node instanceof z.ZodOptional || node instanceof z.ZodDefault) {
      node = node.unwrap() as z.ZodType;
    } else if (node instanceof z.ZodPipe) {
      node = node.in as z.ZodType;
    } else {
      return node;
    }
  }
}

/** `targets.ids[2]` → `targets.ids[]`, for looking up examples. */
function normalize(dotted: string): string {
  return dotted.replace(/\[\d+\]/g, '[]');
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  // Text is never echoed: a misplaced value could be a secret.
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return typeof value;
}

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
