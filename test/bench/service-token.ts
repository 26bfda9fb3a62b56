import { request } from 'undici';
import type { LookupStarted } from './protocol.js';

/** A bearer token from the lookup service, for the contenders that call it without the gateway in between. */
export async function serviceToken({ url, credentials }: LookupStarted): Promise<string> {
  const response = await request(`${url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: credentials.clientId, client_secret: credentials.clientSecret, grant_type: 'client_credentials' }),
  });
  const body = (await response.body.json()) as { access_token?: unknown };
  if (response.statusCode !== 200 || typeof body.access_token !== 'string')
    throw new Error(`The lookup service issued no token (${response.statusCode})`);
  return body.access_token;
}
