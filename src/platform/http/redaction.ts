/** Query parameters whose values are secrets (OAuth codes and verifiers, tokens). */
const SECRET_QUERY_PARAMETERS = new Set([
  'code',
  'code_verifier',
  'state',
  'token',
  'access_token',
  'client_secret',
  'secret',
]);

/**
 * A URL as it may appear in a log line: no user info, secret query values replaced. paw's own
 * URLs never carry a token, but a URL the platform returned (a link) or a browser sent (an OAuth
 * redirect) might.
 */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '[unparseable URL]';
  }
  parsed.username = '';
  parsed.password = '';
  for (const name of [...parsed.searchParams.keys()]) {
    if (SECRET_QUERY_PARAMETERS.has(name.toLowerCase())) parsed.searchParams.set(name, 'redacted');
  }
  return parsed.href;
}
