import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureCompanies, fixtureCompaniesByStatus, startLookupService } from '../../src/lookup-service/index.js';
import type { LookupService } from '../../src/lookup-service/index.js';
import { json, send } from '../support/http.js';
import { accessToken, searchNames, searchRequest } from '../support/lookup-client.js';
import type { SearchBody } from '../support/lookup-client.js';

let service: LookupService;
let token: string;

beforeAll(async () => {
  service = await startLookupService();
  token = await accessToken(service);
});

afterAll(() => service.close());

const valid = { q: 'zebra', jurisdiction: 'GB', pageSize: '10' };

describe('GET /v1/company/search authorisation', () => {
  it.each([
    ['no Authorization header', undefined, 'Missing bearer token'],
    ['an unknown token', 'not-a-token', 'Invalid or expired access token'],
  ])('answers 401 with WWW-Authenticate for %s', async (_case, bearer, message) => {
    const answer = await searchRequest(service, valid, bearer);
    expect({ status: answer.status, authenticate: answer.headers['www-authenticate'], body: json(answer) }).toEqual({
      status: 401,
      authenticate: 'Bearer',
      body: { message },
    });
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two words', 'Token abc'])(
    'answers 401 for the malformed header %j',
    async (authorization) => {
      const answer = await send(`${service.url}/v1/company/search?q=zebra&jurisdiction=GB&pageSize=1`, { headers: { authorization } });
      expect({ status: answer.status, authenticate: answer.headers['www-authenticate'], body: json(answer) }).toEqual({
        status: 401,
        authenticate: 'Bearer',
        body: { message: 'Malformed Authorization header: expected "Bearer <token>"' },
      });
    },
  );

  it('accepts the scheme in any case', async () => {
    const answer = await send(`${service.url}/v1/company/search?q=zebra&jurisdiction=GB&pageSize=1`, {
      headers: { authorization: `bearer ${token}` },
    });
    expect(answer.status).toBe(200);
  });

  it('checks the token before the parameters', async () => {
    expect((await searchRequest(service, { q: '' }, undefined)).status).toBe(401);
  });
});

describe('GET /v1/company/search parameters', () => {
  it.each([
    [{ q: undefined }, 'q is required'],
    [{ q: '' }, 'q must not be empty'],
    [{ q: '   ' }, 'q must not be empty'],
    [{ jurisdiction: undefined }, 'jurisdiction is required'],
    [{ jurisdiction: 'GBR' }, 'jurisdiction must be a two-letter ISO 3166-1 alpha-2 code'],
    [{ jurisdiction: 'G1' }, 'jurisdiction must be a two-letter ISO 3166-1 alpha-2 code'],
    [{ jurisdiction: '' }, 'jurisdiction must be a two-letter ISO 3166-1 alpha-2 code'],
    [{ jurisdiction: 'ZZ' }, 'Unknown jurisdiction: ZZ'],
    [{ jurisdiction: 'uk' }, 'Unknown jurisdiction: UK'],
    [{ pageSize: undefined }, 'pageSize is required'],
    [{ pageSize: '0' }, 'pageSize must be an integer from 1 to 50'],
    [{ pageSize: '51' }, 'pageSize must be an integer from 1 to 50'],
    [{ pageSize: 'abc' }, 'pageSize must be an integer from 1 to 50'],
    [{ pageSize: '2.5' }, 'pageSize must be an integer from 1 to 50'],
    [{ pageSize: '-1' }, 'pageSize must be an integer from 1 to 50'],
    [{ pageSize: '' }, 'pageSize must be an integer from 1 to 50'],
    [{ page: '0' }, 'page must be a positive integer'],
    [{ page: 'two' }, 'page must be a positive integer'],
    [{ page: '1.5' }, 'page must be a positive integer'],
    [{ page: '' }, 'page must be a positive integer'],
  ])('answers 400 for %j: %s', async (change, message) => {
    const parameters = Object.fromEntries(
      Object.entries({ ...valid, ...change }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const answer = await searchRequest(service, parameters, token);
    expect({ status: answer.status, type: answer.headers['content-type'], body: json(answer) }).toEqual({
      status: 400,
      type: 'application/json; charset=utf-8',
      body: { message },
    });
  });

  it('accepts pageSize 1 and 50 and a lower-case jurisdiction', async () => {
    expect((await searchRequest(service, { ...valid, pageSize: '1' }, token)).status).toBe(200);
    expect((await searchRequest(service, { ...valid, pageSize: '50' }, token)).status).toBe(200);
    expect(json(await searchRequest(service, { ...valid, jurisdiction: 'gb' }, token))).toEqual(
      json(await searchRequest(service, valid, token)),
    );
  });
});

describe('GET /v1/company/search results', () => {
  it('answers the whole company in the interface format', async () => {
    const answer = await searchRequest(service, { q: 'Zebra Quantum', jurisdiction: 'GB', pageSize: '10' }, token);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.text).toBe(JSON.stringify({ results: [fixtureCompanies.uniqueName], total: 1 }));
  });

  it('serves null addresses and previous names as they are', async () => {
    const missing = await searchRequest(service, { q: fixtureCompanies.nullAddress.name, jurisdiction: 'GB', pageSize: '1' }, token);
    expect(json(missing)).toEqual({ results: [fixtureCompanies.nullAddress], total: 1 });
    const renamed = await searchRequest(service, { q: fixtureCompanies.withPreviousNames.name, jurisdiction: 'GB', pageSize: '1' }, token);
    expect(json(renamed)).toEqual({ results: [fixtureCompanies.withPreviousNames], total: 1 });
  });

  it('finds IE companies in IE only', async () => {
    expect(await searchNames(service, token, "o'reilly holdings plc", 'IE', 1)).toEqual({
      names: [fixtureCompanies.irishPlc.name],
      total: 1,
    });
    expect((await searchNames(service, token, 'bláth na mara teoranta', 'IE')).names[0]).toBe(fixtureCompanies.irishLanguage.name);
    expect(await searchNames(service, token, 'Liffey Quay Leasing', 'GB')).toEqual({ names: [], total: 0 });
  });

  it('keeps the same name apart in GB and IE', async () => {
    const gbAnswer = json(
      await searchRequest(service, { q: 'Atlantic Bridge Consulting Limited', jurisdiction: 'GB', pageSize: '1' }, token),
    ) as SearchBody;
    const ieAnswer = json(
      await searchRequest(service, { q: 'Atlantic Bridge Consulting Limited', jurisdiction: 'IE', pageSize: '1' }, token),
    ) as SearchBody;
    expect(gbAnswer.results[0]).toEqual(fixtureCompanies.sameNameGb);
    expect(ieAnswer.results[0]).toEqual(fixtureCompanies.sameNameIe);
  });

  it.each(['FR', 'us', 'DE'])('answers an empty 200 for %s, a valid code without data', async (jurisdiction) => {
    const answer = await searchRequest(service, { q: 'holdings', jurisdiction, pageSize: '10' }, token);
    expect({ status: answer.status, text: answer.text }).toEqual({ status: 200, text: '{"results":[],"total":0}' });
  });

  it('puts a company-number match first, ignoring case and spaces', async () => {
    for (const q of ['SC123456', 'sc123456', 'sc 123 456']) {
      expect(await searchNames(service, token, q)).toEqual({ names: [fixtureCompanies.scottish.name], total: 1 });
    }
    expect(await searchNames(service, token, '98765', 'IE')).toEqual({ names: [fixtureCompanies.irishLanguage.name], total: 1 });
    expect(await searchNames(service, token, '9876543')).toEqual({ names: [], total: 0 });
  });

  it('finds a company by a previous name', async () => {
    expect(await searchNames(service, token, 'kestrel print works ltd')).toEqual({
      names: [fixtureCompanies.withPreviousNames.name],
      total: 1,
    });
    expect(await searchNames(service, token, 'Marlowe & Finch Printers')).toEqual({
      names: [fixtureCompanies.withPreviousNames.name],
      total: 1,
    });
  });

  it('treats Ltd and Limited alike, ties ordered by name', async () => {
    const expected = { names: [fixtureCompanies.limited.name, fixtureCompanies.ltd.name], total: 2 };
    expect(await searchNames(service, token, 'Northgate Lumber Ltd')).toEqual(expected);
    expect(await searchNames(service, token, 'NORTHGATE LUMBER LIMITED')).toEqual(expected);
    expect(await searchNames(service, token, 'northgate')).toEqual(expected);
  });

  it('ranks the exact name before names it begins and names that merely contain its words', async () => {
    const { names } = await searchNames(service, token, 'ferncastle dissolved ltd');
    expect(names[0]).toBe(fixtureCompaniesByStatus.DISSOLVED.name);
    const { names: prefixed } = await searchNames(service, token, 'ferncastle d');
    expect(prefixed).toEqual([fixtureCompaniesByStatus.DISSOLVED.name, fixtureCompaniesByStatus.INACTIVE.name]);
  });

  it('counts the total before cutting the page, and pages with the page parameter', async () => {
    const byStatus = Object.values(fixtureCompaniesByStatus)
      .map((company) => company.name)
      .sort();
    const first = await searchNames(service, token, 'ferncastle', 'GB', 4);
    expect(first).toEqual({ names: byStatus.slice(0, 4), total: 10 });
    const third = json(
      await searchRequest(service, { q: 'ferncastle', jurisdiction: 'GB', pageSize: '4', page: '3' }, token),
    ) as SearchBody;
    expect({ names: third.results.map((company) => company.name), total: third.total }).toEqual({ names: byStatus.slice(8), total: 10 });
    const beyond = await searchRequest(service, { q: 'ferncastle', jurisdiction: 'GB', pageSize: '4', page: '4' }, token);
    expect(beyond.text).toBe('{"results":[],"total":10}');
    const huge = await searchRequest(service, { q: 'ferncastle', jurisdiction: 'GB', pageSize: '4', page: '9'.repeat(30) }, token);
    expect(huge.text).toBe('{"results":[],"total":10}');
  });

  it('gives hundreds of matches for a common word, stable from one request to the next', async () => {
    const first = await searchRequest(service, { q: 'holdings', jurisdiction: 'GB', pageSize: '50' }, token);
    const second = await searchRequest(service, { q: 'holdings', jurisdiction: 'GB', pageSize: '50' }, token);
    expect((json(first) as SearchBody).total).toBeGreaterThan(500);
    expect((json(first) as SearchBody).results).toHaveLength(50);
    expect(second.text).toBe(first.text);
  });
});

describe('other requests', () => {
  it('answers 404 in JSON for an unknown path', async () => {
    for (const path of ['/', '/v1/company/search/', '/v2/company/search', '/v1/oauth/token/x']) {
      const answer = await send(`${service.url}${path}`);
      expect({ status: answer.status, type: answer.headers['content-type'], body: json(answer) }).toEqual({
        status: 404,
        type: 'application/json; charset=utf-8',
        body: { message: `No resource at ${path}` },
      });
    }
  });

  it('answers 405 with Allow for another method on the search', async () => {
    const answer = await send(`${service.url}/v1/company/search?q=a&jurisdiction=GB&pageSize=1`, { method: 'POST', body: '{}' });
    expect({ status: answer.status, allow: answer.headers.allow, body: json(answer) }).toEqual({
      status: 405,
      allow: 'GET',
      body: { message: 'Method POST is not allowed on /v1/company/search; use GET' },
    });
  });
});
