import { TOKEN_ENDPOINT, tokenRequestFields, type ClientCredentials } from '../../src/upstream/token-request.js';
import { json, send, type HttpAnswer } from './http.js';

/** A lookup service to call: a running LookupService, or what a benchmark child reports of one. */
export interface LookupAddress {
  url: string;
  credentials: ClientCredentials;
}

/** A token request with the service's credentials; `fields` replace or add fields (undefined ones are left out). */
export function tokenRequest(service: LookupAddress, fields: Record<string, unknown> = {}): Promise<HttpAnswer> {
  return send(`${service.url}${TOKEN_ENDPOINT}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...tokenRequestFields(service.credentials), ...fields }),
  });
}

/** A bearer token from the service, for callers that talk to it without the gateway in between. */
export async function accessToken(service: LookupAddress): Promise<string> {
  const answer = await tokenRequest(service);
  if (answer.status !== 200) throw new Error(`Token request failed: ${answer.status} ${answer.text}`);
  const body = json(answer);
  if (typeof body !== 'object' || body === null || !('access_token' in body) || typeof body.access_token !== 'string') {
    throw new Error(`Token answer without access_token: ${answer.text}`);
  }
  return body.access_token;
}

export function searchRequest(
  service: LookupAddress,
  parameters: Record<string, string>,
  token: string | undefined,
  signal?: AbortSignal,
): Promise<HttpAnswer> {
  const query = new URLSearchParams(parameters).toString();
  return send(`${service.url}/v1/company/search?${query}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal,
  });
}

export interface SearchBody {
  results: { name: string; companyNumber: string; jurisdiction: string }[];
  total: number;
}

export async function searchNames(
  service: LookupAddress,
  token: string,
  q: string,
  jurisdiction = 'GB',
  pageSize = 50,
): Promise<{ names: string[]; total: number }> {
  const answer = await searchRequest(service, { q, jurisdiction, pageSize: String(pageSize) }, token);
  if (answer.status !== 200) throw new Error(`Search failed: ${answer.status} ${answer.text}`);
  const body = json(answer) as SearchBody;
  return { names: body.results.map((company) => company.name), total: body.total };
}
