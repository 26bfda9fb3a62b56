import { createServer } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SearchCompaniesDocument } from '../generated/graphql.js';
import { startStack, type Stack } from '../support/stack.js';
import { freshSearch } from '../support/searches.js';

let stack: Stack;

beforeAll(async () => {
  // One attempt per search and no cool-downs, so each test sees exactly the mapping of one upstream answer.
  stack = await startStack({
    gateway: { upstreamHeadersTimeoutMs: 300, upstreamRetries: 0, tokenRefusedCooldownMs: 0, upstreamBreakerFailures: 1_000 },
  });
});
afterAll(() => stack.close());
beforeEach(() => stack.lookup.counters.reset());
afterEach(() => {
  stack.lookup.knobs.clearFaults();
  stack.lookup.knobs.searchLatencyMs = 0;
});

const MESSAGES = {
  UPSTREAM_AUTH_FAILED:
    "The company lookup service refused the gateway's credentials; trying again will not help until the gateway's operator has checked them.",
  UPSTREAM_RATE_LIMITED: 'The company lookup service is limiting how often the gateway may call it; try again shortly.',
  UPSTREAM_UNAVAILABLE: 'The company lookup service is unavailable; try again shortly.',
  UPSTREAM_TIMEOUT: 'The company lookup service did not answer in time; try again shortly.',
  UPSTREAM_BAD_RESPONSE: 'The company lookup service sent an answer the gateway cannot read; try again later.',
  UPSTREAM_REJECTED_QUERY: 'The company lookup service refused this search; change the search rather than repeating it.',
};

/**
 * The client gets the code and the message of its kind, naming no upstream
 * URL, path, status or library code; the log gets those, in one warning.
 */
async function expectCode(code: keyof typeof MESSAGES, detailPart: string) {
  stack.logs.length = 0;
  const { status, body } = await stack.execute(SearchCompaniesDocument, freshSearch('holdings'));
  expect(status).toBe(200);
  expect(body.data).toBeNull();
  expect(body.errors).toEqual([
    {
      message: MESSAGES[code],
      locations: expect.any(Array),
      path: ['searchCompanies'],
      extensions: { code, requestId: expect.any(String) },
    },
  ]);
  const warnings = stack.logs.map((line) => JSON.parse(line) as { level: number; detail?: string }).filter((entry) => entry.level === 40);
  expect(warnings).toEqual([expect.objectContaining({ code, detail: expect.stringContaining(detailPart) })]);
  return body;
}

describe('upstream failures get coded errors', () => {
  it('logs an upstream failure once, as a warning, and nothing at error level', async () => {
    stack.lookup.knobs.failSearch({ status: 503 });
    await expectCode('UPSTREAM_UNAVAILABLE', 'failed on GET /v1/company/search (503)');
    expect(stack.logs.map((line) => JSON.parse(line) as { level: number }).filter((entry) => entry.level >= 50)).toEqual([]);
  });

  it('logs a failure shared by many waiting requests once', async () => {
    // A stack of its own, whose upstream timeout leaves the one upstream call time to outlast the arrival of all ten
    // requests, which share it; at 100 ms under the shared stack's 300 ms timeout, a busy machine let a late one
    // start a call of its own. Ten loopback requests from this process arrive within milliseconds.
    const own = await startStack({ gateway: { upstreamRetries: 0, upstreamBreakerFailures: 1_000 } });
    try {
      own.lookup.knobs.searchLatencyMs = 1_000;
      own.lookup.knobs.failSearch({ status: 503 });
      const search = freshSearch('holdings');
      const answers = await Promise.all(Array.from({ length: 10 }, () => own.execute(SearchCompaniesDocument, search)));
      expect(answers.map(({ body }) => body.errors?.[0]?.extensions?.code)).toEqual(Array(10).fill('UPSTREAM_UNAVAILABLE'));
      expect(own.lookup.counters.searchRequests).toBe(1);
      const warnings = own.logs.map((line) => JSON.parse(line) as { level: number }).filter((entry) => entry.level === 40);
      expect(warnings).toEqual([expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE', detail: expect.stringContaining('(503)') })]);
    } finally {
      await own.close();
    }
  });

  it('maps a 429 to UPSTREAM_RATE_LIMITED', async () => {
    stack.lookup.knobs.failSearch({ status: 429, body: '{"message":"Too many requests"}' });
    await expectCode('UPSTREAM_RATE_LIMITED', 'rate-limited GET /v1/company/search (429)');
  });

  it.each([500, 502, 503])('maps a %i to UPSTREAM_UNAVAILABLE', async (status) => {
    stack.lookup.knobs.failSearch({ status });
    await expectCode('UPSTREAM_UNAVAILABLE', `failed on GET /v1/company/search (${status})`);
  });

  it('maps a body that is not JSON to UPSTREAM_BAD_RESPONSE', async () => {
    stack.lookup.knobs.failSearch({ kind: 'malformed-json' });
    await expectCode('UPSTREAM_BAD_RESPONSE', 'search response that is not JSON');
  });

  it('maps JSON without results to UPSTREAM_BAD_RESPONSE', async () => {
    stack.lookup.knobs.failSearch({ kind: 'wrong-shape' });
    await expectCode('UPSTREAM_BAD_RESPONSE', 'without a results array');
  });

  it('maps a 400 to UPSTREAM_REJECTED_QUERY, logging the upstream reason rather than returning it', async () => {
    stack.lookup.knobs.failSearch({ status: 400, body: '{"message":"Unknown jurisdiction: ZZ"}' });
    const body = await expectCode('UPSTREAM_REJECTED_QUERY', 'rejected the search on GET /v1/company/search (400)');
    expect(JSON.stringify(body)).not.toContain('Unknown jurisdiction');
    expect(stack.logs.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ level: 40, reason: 'Unknown jurisdiction: ZZ' }),
    );
  });

  it('maps a dropped connection to UPSTREAM_UNAVAILABLE', async () => {
    stack.lookup.knobs.failSearch({ kind: 'drop-connection' });
    await expectCode('UPSTREAM_UNAVAILABLE', 'could not be reached for GET /v1/company/search');
  });

  it('maps a slow upstream to UPSTREAM_TIMEOUT', async () => {
    stack.lookup.knobs.searchLatencyMs = 1_000;
    await expectCode('UPSTREAM_TIMEOUT', 'timed out on GET /v1/company/search (UND_ERR_HEADERS_TIMEOUT)');
  });

  it('maps refused credentials to UPSTREAM_AUTH_FAILED', async () => {
    stack.lookup.knobs.revokeTokens();
    stack.lookup.knobs.failToken({ status: 401, body: '{"message":"Invalid client credentials"}' }, Infinity);
    await expectCode('UPSTREAM_AUTH_FAILED', 'refused the client credentials on POST /v1/oauth/token (401)');
  });

  it('does not cache an error, and answers normally once the fault clears', async () => {
    const query = freshSearch('holdings');
    stack.lookup.knobs.failSearch({ status: 503 });
    const failed = await stack.execute(SearchCompaniesDocument, query);
    expect(failed.body.errors![0]!.extensions).toEqual({ requestId: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' });
    const recovered = await stack.execute(SearchCompaniesDocument, query);
    expect(recovered.body.errors).toBeUndefined();
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });
});

describe('an upstream that cannot be reached', () => {
  it('answers UPSTREAM_UNAVAILABLE when the connection is refused', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const unreachable = await startStack({ upstreamUrl: `http://127.0.0.1:${closedPort}`, gateway: { upstreamRetries: 0 } });
    try {
      const response = await unreachable.post({ query: '{ searchCompanies(q: "acme", jurisdiction: "GB") { totalCount } }' });
      const body = JSON.parse(response.text);
      expect(body.errors[0].extensions).toEqual({ requestId: expect.any(String), code: 'UPSTREAM_UNAVAILABLE' });
      expect(body.errors[0].message).toBe(MESSAGES.UPSTREAM_UNAVAILABLE);
      expect(unreachable.logs.map((line) => JSON.parse(line))).toContainEqual(
        expect.objectContaining({
          level: 40,
          detail: expect.stringContaining('could not be reached for POST /v1/oauth/token (ECONNREFUSED)'),
        }),
      );
    } finally {
      await unreachable.close();
    }
  });
});
