import { request } from 'undici';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  method?: string;
  /** Path and query, e.g. `/graphql?query=...`. */
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** Any request to the gateway exactly as given: no default headers, no encoding. */
export async function send(baseUrl: string, { method = 'GET', path = '/graphql', headers = {}, body }: RawRequest): Promise<RawResponse> {
  const response = await request(`${baseUrl}${path}`, { method: method as 'GET', headers, body });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

/** The `errors[].message`s of a GraphQL-shaped body. */
export function messagesOf(text: string): string[] {
  const body = JSON.parse(text) as { errors?: { message: string }[] };
  return (body.errors ?? []).map((error) => error.message);
}
