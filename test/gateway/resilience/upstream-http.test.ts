import { afterEach, describe, expect, it } from 'vitest';
import { startLookupService, type LookupService } from '../../../src/lookup-service/index.js';
import { UpstreamTimeoutError } from '../../../src/errors/upstream-errors.js';
import { UpstreamHttp } from '../../../src/upstream/upstream-http.js';

const quiet = { debug: () => {}, info: () => {}, warn: () => {} };

let lookup: LookupService | undefined;
let http: UpstreamHttp | undefined;
afterEach(async () => {
  await http?.close();
  await lookup?.close();
  http = lookup = undefined;
});

describe('UpstreamHttp', () => {
  it('answers UPSTREAM_TIMEOUT at the deadline to a call still waiting for a connection, while the call ahead of it goes on', async () => {
    lookup = await startLookupService({ searchLatencyMs: 800 });
    // One connection and room for two calls: the second waits in the pool for the first to finish.
    http = new UpstreamHttp({
      baseUrl: new URL(lookup.url),
      connections: 1,
      connectTimeoutMs: 1_000,
      headersTimeoutMs: 5_000,
      bodyTimeoutMs: 5_000,
      maxResponseBytes: 1_000_000,
      maxInFlight: 2,
      breaker: { failureThreshold: 100, cooldownMs: 1_000 },
      maxRetryAfterMs: 60_000,
      log: quiet,
    });
    const search = { method: 'GET', endpoint: '/v1/company/search', query: { q: 'harbour', jurisdiction: 'GB' } } as const;
    const ahead = http.request(search, Date.now() + 60_000, (response) => response);
    const waiting = http.request(search, Date.now() + 200, (response) => response);
    // At its deadline, not once the call ahead has its answer and the connection is free: that comes 800 ms after it
    // started, and timers ring in the order they are due, however late the machine runs them.
    const first = await Promise.race([
      waiting.then(
        () => 'the waiting call',
        () => 'the waiting call',
      ),
      ahead.then(() => 'the call ahead'),
    ]);
    expect(first).toBe('the waiting call');
    await expect(waiting).rejects.toBeInstanceOf(UpstreamTimeoutError);
    // No token was sent, so the lookup service answers 401: what matters is that the first call was answered at all.
    expect((await ahead).status).toBe(401);
  });
});
