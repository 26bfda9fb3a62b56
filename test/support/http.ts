import type { Readable } from 'node:stream';
import { type Dispatcher, request } from 'undici';

export interface HttpRequest {
  /** Default GET. */
  method?: string;
  /** Appended to the URL as written, e.g. `/graphql?query=…`: nothing is encoded or normalized. */
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer | Readable;
  signal?: AbortSignal;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it came, byte for byte. */
  body: Buffer;
  /** The body read as UTF-8, as undici's `text()` reads it. */
  text: string;
}

/**
 * The tests' HTTP client: any request exactly as given (no default headers,
 * no encoding), and the whole answer. Load runs (bench, soak) have clients of
 * their own, made for many requests at once.
 */
export async function send(url: string, { method = 'GET', path = '', headers = {}, body, signal }: HttpRequest = {}): Promise<HttpAnswer> {
  const response = await request(`${url}${path}`, { method: method as Dispatcher.HttpMethod, headers, body, signal });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, body: bytes, text: new TextDecoder().decode(bytes) };
}

/** The body of `answer` parsed as JSON. */
export function json(answer: HttpAnswer): unknown {
  return JSON.parse(answer.text);
}

/** The `errors[].message`s of a GraphQL-shaped body. */
export function messagesOf(text: string): string[] {
  const body = JSON.parse(text) as { errors?: { message: string }[] };
  return (body.errors ?? []).map((error) => error.message);
}
