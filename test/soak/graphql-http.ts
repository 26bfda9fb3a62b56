import { type Agent, request } from 'undici';

export interface GraphQLBody {
  data?: unknown;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: unknown } }[];
  extensions?: { warnings?: { code?: unknown; path?: unknown }[] };
}

export type Exchange =
  | { kind: 'answer'; status: number; latencyMs: number; body: GraphQLBody }
  | { kind: 'invalid'; status: number; latencyMs: number; reason: string }
  | { kind: 'failed'; outcome: string; latencyMs: number; reason: string };

/**
 * One POST to /graphql over real HTTP. Anything but a well-formed GraphQL
 * response is described rather than thrown, so that the load can count it.
 */
export async function postGraphQL(
  dispatcher: Agent,
  url: string,
  body: { query: string; variables: Record<string, unknown> },
  timeoutMs: number,
): Promise<Exchange> {
  const startedAt = performance.now();
  const latency = () => performance.now() - startedAt;
  let status: number;
  let text: string;
  let contentType: string;
  // Cleared when the exchange ends: AbortSignal.timeout's timer would outlive every request.
  const hang = new AbortController();
  const timer = setTimeout(() => hang.abort(), timeoutMs);
  try {
    const response = await request(url, {
      method: 'POST',
      dispatcher,
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify(body),
      signal: hang.signal,
    });
    status = response.statusCode;
    contentType = String(response.headers['content-type'] ?? '');
    text = await response.body.text();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      kind: 'failed',
      outcome: hang.signal.aborted ? 'hung' : `transport:${typeof code === 'string' ? code : 'error'}`,
      latencyMs: latency(),
      reason: error instanceof Error ? error.message : String(error),
    };
  } finally {
    clearTimeout(timer);
  }
  const latencyMs = latency();
  const invalid = (reason: string): Exchange => ({
    kind: 'invalid',
    status,
    latencyMs,
    reason: `${status} ${reason}: ${text.slice(0, 200)}`,
  });
  if (!/json/.test(contentType)) return invalid(`content-type ${JSON.stringify(contentType)}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return invalid('body is not JSON');
  }
  const problem = graphQLResponseProblem(parsed);
  if (problem) return invalid(problem);
  return { kind: 'answer', status, latencyMs, body: parsed as GraphQLBody };
}

/** What makes `value` not a GraphQL response (spec §7.1), or undefined when it is one. */
function graphQLResponseProblem(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'body is not an object';
  const response = value as Record<string, unknown>;
  const extra = Object.keys(response).filter((key) => !['data', 'errors', 'extensions'].includes(key));
  if (extra.length > 0) return `unexpected top-level keys ${extra.join(', ')}`;
  if (!('data' in response) && !('errors' in response)) return 'neither data nor errors';
  if ('errors' in response) {
    const { errors } = response;
    if (!Array.isArray(errors) || errors.length === 0) return 'errors is not a non-empty list';
    if (errors.some((error) => typeof (error as { message?: unknown } | null)?.message !== 'string')) return 'an error without a message';
  }
  if ('data' in response && response.data !== null && (typeof response.data !== 'object' || Array.isArray(response.data))) {
    return 'data is neither an object nor null';
  }
  return undefined;
}
