import { appendPath } from '../http/append-path.js';

const AUTHORIZE_PATH = '/oauth_authorize';

export interface AuthorizationRequest {
  readonly baseUrl: URL;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly state: string;
  readonly codeChallenge: string;
}

/** The URL the user opens to authorize paw (spec 4.4: authorization code with PKCE, S256 only). */
export function buildAuthorizeUrl(request: AuthorizationRequest): URL {
  const url = appendPath(request.baseUrl, AUTHORIZE_PATH);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', request.clientId);
  url.searchParams.set('redirect_uri', request.redirectUri);
  url.searchParams.set('scope', request.scope);
  url.searchParams.set('state', request.state);
  url.searchParams.set('code_challenge', request.codeChallenge);
  url.searchParams.set('code_challenge_method', 'S256');
  return url;
}
