import { request } from 'undici';

/** A response, its body parsed as JSON when it is JSON. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The parsed JSON body; undefined when the body is empty or not JSON. */
  // The tests look into bodies of many shapes; each asserts the shape it expects.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

export interface CallOptions {
  readonly token?: string;
  readonly json?: unknown;
  readonly form?: Record<string, string>;
  readonly headers?: Record<string, string>;
}

/** One HTTP call with undici, straight to the simulator (no paw client code involved). */
export async function call(
  method: string,
  url: string,
  options: CallOptions = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['authorization'] = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const response = await request(url, {
    method: method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.body.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.statusCode, headers: response.headers, text, body: parsed };
}
