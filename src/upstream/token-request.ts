export const TOKEN_ENDPOINT = '/v1/oauth/token';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

/** The fields of a token request: the OAuth 2.0 client_credentials grant, sent as a JSON object. */
export interface TokenRequestFields {
  client_id: string;
  client_secret: string;
  grant_type: 'client_credentials';
}

/**
 * The one place the token request is written: the gateway sends it, and the
 * tests and the benchmark ask the embedded lookup service for tokens with it.
 */
export function tokenRequestFields({ clientId, clientSecret }: ClientCredentials): TokenRequestFields {
  return { client_id: clientId, client_secret: clientSecret, grant_type: 'client_credentials' };
}
