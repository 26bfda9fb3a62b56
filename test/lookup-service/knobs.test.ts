import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allFixtureCompanies, fixtureCompanies, startLookupService } from '../../src/lookup-service/index.js';
import type { CompanyResult, LookupService } from '../../src/lookup-service/index.js';
import { json, send } from '../support/http.js';
import { manualClock } from '../support/clock.js';
import { watch, type WatchedRequest } from '../support/watched-request.js';
import { accessToken, searchRequest, tokenRequest } from '../support/lookup-client.js';
import { eventually } from '../support/within.js';

let service: LookupService;
let token: string;
/** The service's clock for token lifetimes and quota windows: they end when a test moves it on. */
const clock = manualClock(0);

const zebra = { q: 'zebra', jurisdiction: 'GB', pageSize: '5' };
const zebraAnswer = JSON.stringify({ results: [fixtureCompanies.uniqueName], total: 1 });

beforeAll(async () => {
  service = await startLookupService({ companies: allFixtureCompanies, clock });
});

afterAll(() => service.close());

beforeEach(async () => {
  const { knobs } = service;
  knobs.clearFaults();
  knobs.quota = undefined;
  knobs.searchLatencyMs = 0;
  knobs.tokenLatencyMs = 0;
  knobs.tokenLifetimeSeconds = 3600;
  token = await accessToken(service);
  service.counters.reset();
});

function search(parameters: Record<string, string> = zebra, signal?: AbortSignal) {
  return searchRequest(service, parameters, token, signal);
}

/** Services of a test's own, for requests held by a latency of a minute: closing one ends its waits, and afterEach closes it whatever happens. */
const ownServices: LookupService[] = [];

afterEach(async () => {
  await Promise.all(ownServices.splice(0).map((own) => own.close()));
});

async function startOwnService(): Promise<LookupService> {
  const own = await startLookupService({ companies: allFixtureCompanies });
  ownServices.push(own);
  return own;
}

/** Long enough that a request held by it is still waiting when the test ends, however busy the machine: close() ends it. */
const HOLD_MS = 60_000;

/** Closes `own` while `held` still waits out its minute: the request fails, never answered. */
async function closeWhileHeld(own: LookupService, held: WatchedRequest): Promise<void> {
  expect(held.settled, 'the held request settled before close()').toBe(false);
  await own.close();
  expect(await held.outcome).toBe('failed');
}

describe('latency knobs', () => {
  it('delays every search by searchLatencyMs, whatever the answer', async () => {
    const own = await startOwnService();
    const ownToken = await accessToken(own);
    own.knobs.searchLatencyMs = HOLD_MS;
    const found = watch(searchRequest(own, zebra, ownToken));
    const refused = watch(searchRequest(own, zebra, undefined));
    await eventually(() => expect(own.counters).toMatchObject({ searchRequests: 2, searchesInFlight: 2 }));
    // A token request, not delayed, is answered while both searches, the one found and the one refused 401, still wait.
    expect((await tokenRequest(own)).status).toBe(200);
    expect([found.settled, refused.settled]).toEqual([false, false]);
    await closeWhileHeld(own, found);
    expect(await refused.outcome).toBe('failed');
    expect(own.counters.searchesAnswered).toBe(0);
  });

  it('counts a delayed search on arrival, and reads the knob per request: set back to 0, it no longer delays', async () => {
    const own = await startOwnService();
    const ownToken = await accessToken(own);
    const ownSearch = () => searchRequest(own, zebra, ownToken);
    own.knobs.searchLatencyMs = HOLD_MS;
    const held = watch(ownSearch());
    await eventually(() => expect(own.counters).toMatchObject({ searchRequests: 1, searchesInFlight: 1, searchesAnswered: 0 }));
    own.knobs.searchLatencyMs = 0;
    // Answered while the held search still waits out its minute: this one was not delayed.
    expect((await ownSearch()).text).toBe(zebraAnswer);
    expect(own.counters).toMatchObject({ searchRequests: 2, searchesAnswered: 1, searchesInFlight: 1 });
    await closeWhileHeld(own, held);
    expect(own.counters.searchesAnswered).toBe(1);
  });

  it('holds many delayed searches at once without a listener-leak warning', async () => {
    // All 15 are sent long before the first is answered, however busy the machine.
    service.knobs.searchLatencyMs = 500;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const answers = await Promise.all(Array.from({ length: 15 }, () => search()));
      expect(answers.map((answer) => answer.text)).toEqual(answers.map(() => zebraAnswer));
      expect(service.counters.maxSearchesInFlight).toBe(15);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('delays every token request by tokenLatencyMs', async () => {
    const own = await startOwnService();
    own.knobs.tokenLatencyMs = HOLD_MS;
    const held = watch(tokenRequest(own));
    await eventually(() => expect(own.counters.tokenRequests).toBe(1));
    // Set back to 0, the knob delays the next one no more: it is answered while the first still waits.
    own.knobs.tokenLatencyMs = 0;
    expect((await tokenRequest(own)).status).toBe(200);
    expect(own.counters).toMatchObject({ tokenRequests: 2, tokensIssued: 1 });
    await closeWhileHeld(own, held);
  });

  it('does not delay searches by the token latency', async () => {
    const own = await startOwnService();
    const ownToken = await accessToken(own);
    own.knobs.tokenLatencyMs = HOLD_MS;
    const held = watch(tokenRequest(own));
    await eventually(() => expect(own.counters).toMatchObject({ tokenRequests: 2, tokensIssued: 1 }));
    // Answered while the held token request still waits out its minute: the search was not delayed by it.
    expect((await searchRequest(own, zebra, ownToken)).text).toBe(zebraAnswer);
    expect(own.counters).toMatchObject({ tokenRequests: 2, tokensIssued: 1, searchesAnswered: 1 });
    await closeWhileHeld(own, held);
    expect(own.counters.tokensIssued).toBe(1);
  });
});

describe('token lifetime and revocation', () => {
  it('expires tokens after tokenLifetimeSeconds, rounding expires_in up', async () => {
    service.knobs.tokenLifetimeSeconds = 0.2;
    const answer = await tokenRequest(service);
    const { access_token: shortLived, expires_in: expiresIn } = json(answer) as { access_token: string; expires_in: number };
    expect(expiresIn).toBe(1);
    expect((await searchRequest(service, zebra, shortLived)).status).toBe(200);
    clock.advance(199);
    expect((await searchRequest(service, zebra, shortLived)).status).toBe(200);
    clock.advance(1);
    const expired = await searchRequest(service, zebra, shortLived);
    expect({ status: expired.status, authenticate: expired.headers['www-authenticate'], body: json(expired) }).toEqual({
      status: 401,
      authenticate: 'Bearer',
      body: { message: 'Invalid or expired access token' },
    });
    expect((await search()).status).toBe(200);
  });

  it('gives a whole number of seconds as it is', async () => {
    service.knobs.tokenLifetimeSeconds = 2;
    expect((json(await tokenRequest(service)) as { expires_in: number }).expires_in).toBe(2);
  });

  it('revokeTokens invalidates every token issued so far, not later ones', async () => {
    const other = await accessToken(service);
    expect(service.knobs.issuedTokens()).toEqual(expect.arrayContaining([token, other]));
    service.knobs.revokeTokens();
    expect(service.knobs.issuedTokens()).toEqual([]);
    expect((await search()).status).toBe(401);
    expect((await searchRequest(service, zebra, other)).status).toBe(401);
    const fresh = await accessToken(service);
    expect(service.knobs.issuedTokens()).toEqual([fresh]);
    expect((await searchRequest(service, zebra, fresh)).status).toBe(200);
  });
});

describe('search faults', () => {
  it('answers a raw status with a default message the given number of times', async () => {
    service.knobs.failSearch({ status: 503 }, 2);
    for (let i = 0; i < 2; i++) {
      const answer = await search();
      expect({ status: answer.status, type: answer.headers['content-type'], text: answer.text }).toEqual({
        status: 503,
        type: 'application/json; charset=utf-8',
        text: '{"message":"Service Unavailable"}',
      });
    }
    expect((await search()).text).toBe(zebraAnswer);
  });

  it('answers a raw status with the given body and headers', async () => {
    service.knobs.failSearch({ status: 429, body: 'slow down', headers: { 'Retry-After': '7', 'Content-Type': 'text/plain' } });
    const answer = await search();
    expect({
      status: answer.status,
      retryAfter: answer.headers['retry-after'],
      type: answer.headers['content-type'],
      text: answer.text,
    }).toEqual({
      status: 429,
      retryAfter: '7',
      type: 'text/plain',
      text: 'slow down',
    });
  });

  it('uses queued faults in the order they were added', async () => {
    service.knobs.failSearch({ status: 500 });
    service.knobs.failSearch({ status: 502 }, 2);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await search()).status);
    expect(statuses).toEqual([500, 502, 502, 200]);
  });

  it('answers 200 with a body that is not JSON', async () => {
    service.knobs.failSearch({ kind: 'malformed-json' });
    const answer = await search();
    expect({ status: answer.status, type: answer.headers['content-type'], text: answer.text }).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      text: '{"results": [{"name": "Acme Widg',
    });
    expect(() => JSON.parse(answer.text)).toThrow(SyntaxError);
  });

  it('answers 200 with JSON that lacks results', async () => {
    service.knobs.failSearch({ kind: 'wrong-shape' });
    const answer = await search();
    expect({ status: answer.status, body: json(answer) }).toEqual({ status: 200, body: { companies: [], total: 0 } });
  });

  it('drops the connection without an answer, then serves the next request', async () => {
    service.knobs.failSearch({ kind: 'drop-connection' });
    await expect(search()).rejects.toThrow();
    expect((await search()).text).toBe(zebraAnswer);
  });

  it('hangs until cleared when told to fail for ever', async () => {
    service.knobs.failSearch({ kind: 'hang' }, Infinity);
    await expect(search(zebra, AbortSignal.timeout(100))).rejects.toThrow();
    await expect(search(zebra, AbortSignal.timeout(100))).rejects.toThrow();
    service.knobs.clearFaults();
    expect((await search()).text).toBe(zebraAnswer);
  });

  it('answers the fault before checking the token, and counts the request but not as answered', async () => {
    service.knobs.failSearch({ status: 500 });
    expect((await searchRequest(service, zebra, undefined)).status).toBe(500);
    expect(service.counters).toMatchObject({ searchRequests: 1, searchesAnswered: 0 });
  });
});

describe('token faults', () => {
  it('answers a raw status', async () => {
    service.knobs.failToken({ status: 500 });
    const answer = await tokenRequest(service);
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 500, text: '{"message":"Internal Server Error"}' });
    expect((await tokenRequest(service)).status).toBe(200);
  });

  it('answers malformed JSON, then JSON without access_token', async () => {
    service.knobs.failToken({ kind: 'malformed-json' });
    service.knobs.failToken({ kind: 'wrong-shape' });
    const malformed = await tokenRequest(service);
    expect({ status: malformed.status, text: malformed.text }).toEqual({ status: 200, text: '{"access_token": "eyJhbGciOi' });
    expect(() => JSON.parse(malformed.text)).toThrow(SyntaxError);
    const wrongShape = await tokenRequest(service);
    expect({ status: wrongShape.status, body: json(wrongShape) }).toEqual({
      status: 200,
      body: { token_type: 'Bearer', expires_in: 3600 },
    });
  });

  it('drops the connection and hangs', async () => {
    service.knobs.failToken({ kind: 'drop-connection' });
    service.knobs.failToken({ kind: 'hang' });
    await expect(tokenRequest(service)).rejects.toThrow();
    await expect(
      send(`${service.url}/v1/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(100),
      }),
    ).rejects.toThrow();
    expect((await tokenRequest(service)).status).toBe(200);
    expect(service.counters).toMatchObject({ tokenRequests: 3, tokensIssued: 1 });
  });
});

describe('mapResults', () => {
  it('changes the served results without touching the data set', async () => {
    service.knobs.mapResults = (results: CompanyResult[]) =>
      results.map((result) => {
        result.name = 'mutated by the mapper';
        return { ...result, incorporatedDate: 'not a date', status: 42 };
      });
    const answer = json(await search()) as { results: Record<string, unknown>[]; total: number };
    expect(answer.total).toBe(1);
    expect(answer.results[0]).toMatchObject({ name: 'mutated by the mapper', incorporatedDate: 'not a date', status: 42 });
    expect(fixtureCompanies.uniqueName.name).toBe('Zebra Quantum Fisheries Ltd');
    service.knobs.clearFaults();
    expect(service.knobs.mapResults).toBeUndefined();
    expect((await search()).text).toBe(zebraAnswer);
  });

  it('answers 500 in JSON when the mapper throws', async () => {
    service.knobs.mapResults = () => {
      throw new Error('mapper bug');
    };
    const answer = await search();
    expect({ status: answer.status, body: json(answer) }).toEqual({ status: 500, body: { message: 'Internal server error: mapper bug' } });
  });
});

describe('correctCompany', () => {
  it('serves the corrected fields in every answer that holds the company, from then on, and keeps them through clearFaults', async () => {
    const own = await startOwnService();
    const ownToken = await accessToken(own);
    const { companyNumber } = fixtureCompanies.uniqueName;
    own.knobs.correctCompany('gb', companyNumber.toLowerCase(), { name: 'Zebra Quantum Fisheries (Corrected) Ltd' });
    own.knobs.correctCompany('GB', companyNumber, { status: 'DISSOLVED' });
    own.knobs.clearFaults();
    for (const q of ['zebra', companyNumber]) {
      const answer = json(await searchRequest(own, { ...zebra, q }, ownToken)) as { results: CompanyResult[] };
      expect(answer.results).toEqual([
        { ...fixtureCompanies.uniqueName, name: 'Zebra Quantum Fisheries (Corrected) Ltd', status: 'DISSOLVED' },
      ]);
    }
    expect(fixtureCompanies.uniqueName.name).toBe('Zebra Quantum Fisheries Ltd');
    // Another service, and the same company in it, are as they were.
    expect((await search()).text).toBe(zebraAnswer);
  });
});

describe('mapTokenAnswer', () => {
  it('changes the token answer while the token it names is issued and accepted', async () => {
    service.knobs.mapTokenAnswer = ({ access_token, token_type }) => ({ access_token, token_type: token_type.toLowerCase() });
    const answer = json(await tokenRequest(service)) as Record<string, unknown>;
    expect(answer).toEqual({ access_token: expect.any(String), token_type: 'bearer' });
    expect(service.counters.tokensIssued).toBe(1);
    expect((await searchRequest(service, zebra, answer.access_token as string)).text).toBe(zebraAnswer);
    service.knobs.clearFaults();
    expect(service.knobs.mapTokenAnswer).toBeUndefined();
    expect(json(await tokenRequest(service))).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
  });

  it('refuses a mapper that is not a function', () => {
    expect(() => (service.knobs.mapTokenAnswer = 'drop expires_in' as never)).toThrow(
      'mapTokenAnswer must be a function or undefined, got "drop expires_in"',
    );
  });
});

describe('quota', () => {
  it('answers 429 without Retry-After beyond the limit, token and search requests together, until the window ends', async () => {
    service.knobs.quota = { limit: 3, windowMs: 200 };
    expect((await tokenRequest(service)).status).toBe(200);
    expect((await search()).status).toBe(200);
    expect((await search()).status).toBe(200);
    const refused = await search();
    expect({ status: refused.status, retryAfter: refused.headers['retry-after'], body: json(refused) }).toEqual({
      status: 429,
      retryAfter: undefined,
      body: { message: 'Request quota exceeded' },
    });
    expect((await tokenRequest(service)).status).toBe(429);
    expect(service.counters).toMatchObject({ tokenRequests: 2, tokensIssued: 1, searchRequests: 3, searchesAnswered: 2 });
    clock.advance(199);
    expect((await search()).status).toBe(429);
    clock.advance(1);
    expect((await search()).status).toBe(200);
    service.knobs.quota = undefined;
    for (let i = 0; i < 5; i++) expect((await search()).status).toBe(200);
  });

  it('starts a new window when the quota is set again', async () => {
    service.knobs.quota = { limit: 1, windowMs: 60_000 };
    expect((await search()).status).toBe(200);
    expect((await search()).status).toBe(429);
    service.knobs.quota = { limit: 1, windowMs: 60_000 };
    expect((await search()).status).toBe(200);
  });
});

describe('counters', () => {
  it('count requests and answers and log the raw query strings and traceparent headers', async () => {
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await tokenRequest(service, { client_secret: 'wrong' });
    await tokenRequest(service);
    await send(`${service.url}/v1/company/search?q=acme%20widgets&jurisdiction=gb&pageSize=10&page=2`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await send(`${service.url}/v1/company/search?q=&jurisdiction=GB&pageSize=10`, {
      headers: { authorization: `Bearer ${token}`, traceparent },
    });
    await send(`${service.url}/v1/company/search`);
    await send(`${service.url}/nowhere`);
    const noTrace = (path: string) => ({ path, traceparent: undefined });
    expect({
      ...service.counters,
      searchQueries: [...service.counters.searchQueries],
      traceparents: [...service.counters.traceparents],
    }).toEqual({
      tokenRequests: 2,
      tokensIssued: 1,
      searchRequests: 3,
      searchesAnswered: 1,
      searchQueries: ['q=acme%20widgets&jurisdiction=gb&pageSize=10&page=2', 'q=&jurisdiction=GB&pageSize=10', ''],
      traceparents: [
        noTrace('/v1/oauth/token'),
        noTrace('/v1/oauth/token'),
        noTrace('/v1/company/search'),
        { path: '/v1/company/search', traceparent },
        noTrace('/v1/company/search'),
      ],
      searchesInFlight: 0,
      maxSearchesInFlight: 1,
    });
    service.counters.reset();
    expect({
      ...service.counters,
      searchQueries: [...service.counters.searchQueries],
      traceparents: [...service.counters.traceparents],
    }).toEqual({
      tokenRequests: 0,
      tokensIssued: 0,
      searchRequests: 0,
      searchesAnswered: 0,
      searchQueries: [],
      traceparents: [],
      searchesInFlight: 0,
      maxSearchesInFlight: 0,
    });
  });

  it('count the searches in flight at once', async () => {
    service.counters.reset();
    service.knobs.searchLatencyMs = 100;
    try {
      const searchOnce = () =>
        send(`${service.url}/v1/company/search?q=acme&jurisdiction=GB&pageSize=10`, { headers: { authorization: `Bearer ${token}` } });
      await Promise.all([searchOnce(), searchOnce(), searchOnce()]);
      expect(service.counters.maxSearchesInFlight).toBe(3);
      expect(service.counters.searchesInFlight).toBe(0);
      await searchOnce();
      expect(service.counters.maxSearchesInFlight).toBe(3);
    } finally {
      service.knobs.searchLatencyMs = 0;
    }
  });
});

describe('knob validation', () => {
  it('rejects invalid values with a message naming the knob', () => {
    const { knobs } = service;
    expect(() => (knobs.searchLatencyMs = -1)).toThrow('searchLatencyMs must be a number of milliseconds from 0 to 2147483647, got -1');
    expect(() => (knobs.tokenLatencyMs = Number.NaN)).toThrow('tokenLatencyMs must be a number of milliseconds');
    expect(() => (knobs.tokenLifetimeSeconds = 0)).toThrow('tokenLifetimeSeconds must be a positive finite number, got 0');
    expect(() => (knobs.quota = { limit: -1, windowMs: 1000 })).toThrow('quota.limit must be an integer from 0 to');
    expect(() => (knobs.quota = { limit: 1, windowMs: 0 })).toThrow('quota.windowMs must be a positive finite number, got 0');
    expect(() => knobs.failSearch({ status: 99 })).toThrow('fault.status must be an integer from 200 to 599, got 99');
    expect(() => knobs.failSearch({ kind: 'explode' } as never)).toThrow(
      'fault.kind must be one of malformed-json, wrong-shape, drop-connection, hang, got "explode"',
    );
    expect(() => knobs.failToken({ status: 500 }, 0)).toThrow('times must be a positive integer or Infinity, got 0');
    expect(() => knobs.failToken({ status: 500, headers: { 'x-count': 1 } } as never)).toThrow(
      'fault.headers.x-count must be a string, got 1',
    );
    expect(knobs.searchLatencyMs).toBe(0);
  });
});
