import { request } from 'undici';
import type { LookupService } from '../../src/lookup-service/index.js';

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export async function call(url: string, options: CallOptions = {}): Promise<HttpAnswer> {
  const response = await request(url, {
    method: options.method ?? 'GET',
    headers: options.headers,
    body: options.body,
    signal: options.signal,
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

export function json(answer: HttpAnswer): unknown {
  return JSON.parse(answer.text);
}

export function tokenRequest(service: LookupService, fields: Record<string, unknown> = {}): Promise<HttpAnswer> {
  return call(`${service.url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: service.credentials.clientId,
      client_secret: service.credentials.clientSecret,
      grant_type: 'client_credentials',
      ...fields,
    }),
  });
}

export async function accessToken(service: LookupService): Promise<string> {
  const answer = await tokenRequest(service);
  if (answer.status !== 200) throw new Error(`Token request failed: ${answer.status} ${answer.text}`);
  const body = json(answer);
  if (typeof body !== 'object' || body === null || !('access_token' in body) || typeof body.access_token !== 'string') {
    throw new Error(`Token answer without access_token: ${answer.text}`);
  }
  return body.access_token;
}

export function searchRequest(
  service: LookupService,
  parameters: Record<string, string>,
  token: string | undefined,
  signal?: AbortSignal,
): Promise<HttpAnswer> {
  const query = new URLSearchParams(parameters).toString();
  return call(`${service.url}/v1/company/search?${query}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal,
  });
}

export interface SearchBody {
  results: { name: string; companyNumber: string; jurisdiction: string }[];
  total: number;
}

export async function searchNames(
  service: LookupService,
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
