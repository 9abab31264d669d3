import type { SimServiceAccount } from './accounts.js';

/** The platform's service-account credentials file, exactly as its UI hands it out. */
export interface CredentialsFile {
  client_id: string;
  client_secret: string;
  name: string;
  access_token_uri: string;
}

export function credentialsFileOf(
  account: SimServiceAccount,
  accessTokenUri: string,
): CredentialsFile {
  return {
    client_id: account.clientId,
    client_secret: account.secret,
    name: account.name,
    access_token_uri: accessTokenUri,
  };
}
