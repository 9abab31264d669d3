import { parse as parseYaml } from 'yaml';
import { answerCostProblem } from '../http/answer-limits.js';
import { appendPath } from '../http/append-path.js';
import type { BearerAuthorization, HttpCaller } from '../http/http-caller.js';
import type { IncomingResponse } from '../http/http-transport.js';
import { errorFromResponse } from '../http/error-factory.js';
import { ProtocolError, isPlatformError, type PlatformError } from '../http/platform-errors.js';
import { HTTP_METHODS, type HttpMethod } from '../defaults/default-routes.js';

/** One operation of the platform's own REST reference (an OpenAPI document). */
export interface ReferenceOperation {
  readonly method: HttpMethod;
  /** As the document writes it, from `{base_url}` (`/api/rest/objects/{objectId}`). */
  readonly path: string;
  readonly operationId: string | undefined;
  readonly summary: string | undefined;
  readonly tags: readonly string[];
}

/** The platform's REST reference and where it was found. */
export interface RestReference {
  readonly url: string;
  /** `docs page` (named by `/api/rest/docs`) or `usual name`. */
  readonly foundVia: 'docs page' | 'usual name';
  readonly operations: readonly ReferenceOperation[];
}

export interface FindRestReferenceOptions {
  readonly http: HttpCaller;
  readonly baseUrl: URL;
  readonly restBasePath: string;
  readonly authorization: BearerAuthorization;
  readonly signal?: AbortSignal | undefined;
}

/** Where OpenAPI documents usually are, relative to the REST base path. */
const USUAL_NAMES = [
  'openapi.json',
  'openapi.yaml',
  'swagger.json',
  'docs/json',
  'docs/openapi.json',
  'v3/api-docs',
];

/** Redirects followed on the platform's own origin, at most. */
const MAX_REDIRECTS = 5;

/**
 * Finds the platform's own REST reference: the Swagger UI page at `{rest}/docs` names its
 * OpenAPI document (in the page or in the initializer script it loads); failing that, the usual
 * document names are tried. Everything goes through the HTTP caller (origin guard, gate, the
 * token only to the platform's origin); a redirect is followed only on that origin. Returns the
 * addresses tried when nothing answers.
 */
export async function findRestReference(
  options: FindRestReferenceOptions,
): Promise<{ readonly reference?: RestReference; readonly tried: readonly string[] }> {
  const rest = appendPath(options.baseUrl, options.restBasePath);
  const tried: string[] = [];
  const docsPage = appendPath(rest, 'docs');
  const named = await documentNamedByDocsPage(options, docsPage, tried).catch(() => undefined);
  if (named !== undefined) {
    const reference = await readReference(options, named, 'docs page', tried);
    if (reference !== undefined) return { reference, tried };
  }
  for (const name of USUAL_NAMES) {
    const reference = await readReference(options, appendPath(rest, name), 'usual name', tried);
    if (reference !== undefined) return { reference, tried };
  }
  return { tried };
}

async function documentNamedByDocsPage(
  options: FindRestReferenceOptions,
  page: URL,
  tried: string[],
): Promise<URL | undefined> {
  tried.push(page.pathname);
  const html = await get(options, page);
  if (html === undefined) return undefined;
  const inline = documentUrlIn(html.body, html.url);
  if (inline !== undefined) return inline;
  // Swagger UI's page loads its configuration from an initializer script next to it.
  for (const match of html.body.matchAll(/<script[^>]+src=["']([^"']+)["']/gi)) {
    const source = new URL(match[1] ?? '', withSlash(html.url));
    if (!/initializer|swagger-config|config/i.test(source.pathname)) continue;
    const script = await get(options, source);
    const found = script === undefined ? undefined : documentUrlIn(script.body, html.url);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The document address a Swagger UI page or script names (`url: "..."`, `spec-url="..."`). */
function documentUrlIn(text: string, page: URL): URL | undefined {
  const relative = /resolveUrl\(\s*["']([^"']+)["']\s*\)/.exec(text)?.[1];
  if (relative !== undefined) return new URL(relative, withSlash(page));
  const named =
    /\burl\s*:\s*["']([^"']+\.(?:json|ya?ml)[^"']*)["']/i.exec(text)?.[1] ??
    /\burl\s*:\s*["']([^"']+)["']/i.exec(text)?.[1] ??
    /spec-url=["']([^"']+)["']/i.exec(text)?.[1];
  return named === undefined ? undefined : new URL(named, withSlash(page));
}

async function readReference(
  options: FindRestReferenceOptions,
  url: URL,
  foundVia: RestReference['foundVia'],
  tried: string[],
): Promise<RestReference | undefined> {
  if (!tried.includes(url.pathname)) tried.push(url.pathname);
  const response = await get(options, url).catch(() => undefined);
  if (response === undefined) return undefined;
  // Too costly to parse is no reference paw can use (the YAML parser nests as deep as JSON's).
  if (answerCostProblem(response.body) !== undefined) return undefined;
  let document: unknown;
  try {
    document = /^\s*[{[]/.test(response.body)
      ? JSON.parse(response.body)
      : parseYaml(response.body, { maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  const operations = operationsOf(document);
  return operations === undefined ? undefined : { url: response.url.href, foundVia, operations };
}

/** The operations of an OpenAPI (or Swagger 2) document, or undefined when it is not one. */
function operationsOf(document: unknown): ReferenceOperation[] | undefined {
  if (!isRecord(document) || !isRecord(document['paths'])) return undefined;
  if (document['openapi'] === undefined && document['swagger'] === undefined) return undefined;
  const prefix = serverPath(document);
  const operations: ReferenceOperation[] = [];
  for (const [path, item] of Object.entries(document['paths'])) {
    if (!isRecord(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method.toLowerCase()];
      if (!isRecord(operation)) continue;
      operations.push({
        method,
        path: `${prefix}${path}`,
        operationId: stringOf(operation['operationId']),
        summary: stringOf(operation['summary']) ?? stringOf(operation['description']),
        tags: Array.isArray(operation['tags'])
          ? operation['tags'].filter((tag): tag is string => typeof tag === 'string')
          : [],
      });
    }
  }
  return operations;
}

/** The path part of the document's first server (Swagger 2: `basePath`), '' when none. */
function serverPath(document: Record<string, unknown>): string {
  const basePath = stringOf(document['basePath']);
  if (basePath !== undefined) return basePath.replace(/\/+$/, '');
  const servers = document['servers'];
  const first = Array.isArray(servers) ? (servers[0] as unknown) : undefined;
  const url = isRecord(first) ? stringOf(first['url']) : undefined;
  if (url === undefined) return '';
  try {
    return new URL(url, 'http://placeholder').pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** A GET of a page on the platform's origin, redirects on that origin followed. */
async function get(
  options: FindRestReferenceOptions,
  start: URL,
): Promise<{ readonly url: URL; readonly body: string } | undefined> {
  let url = start;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    try {
      const response = await options.http.call({
        operation: 'restReference',
        method: 'GET',
        route: '(the platform REST reference)',
        url,
        allowedOrigin: options.baseUrl.origin,
        idempotent: true,
        gated: true,
        authorization: options.authorization,
        signal: options.signal,
        answer: 'document',
        parse: (answer) => answer,
        classify: (answer, operation) => redirectOrFailure(answer, operation),
      });
      return { url, body: response.body };
    } catch (error) {
      if (error instanceof RedirectError && hop < MAX_REDIRECTS) {
        const next = new URL(error.location, url);
        if (next.origin !== options.baseUrl.origin) return undefined; // never off the platform
        url = next;
        continue;
      }
      if (isPlatformError(error)) return undefined;
      throw error;
    }
  }
  return undefined;
}

/** A 3xx answer, kept so that the caller may follow it on the platform's origin. */
class RedirectError extends ProtocolError {
  constructor(
    operation: string,
    readonly location: string,
  ) {
    super({ operation, code: 'REDIRECT', message: 'redirected', mayHaveTakenEffect: false });
  }
}

function redirectOrFailure(response: IncomingResponse, operation: string): PlatformError {
  const location = response.headers.location;
  if (response.status >= 300 && response.status < 400 && typeof location === 'string') {
    return new RedirectError(operation, location);
  }
  return errorFromResponse({ operation, status: response.status, body: response.body });
}

function withSlash(url: URL): URL {
  return url.pathname.endsWith('/') ? url : new URL(`${url.href}/`);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
