import { print } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { companyTag, jurisdictionTag, searchTag } from '../../../src/upstream/cache-tags.js';
import { CompanyByNumberDocument, DashboardSearchDocument } from '../../generated/graphql.js';
import { ADMIN, ADMIN_TOKEN, purge } from '../../support/admin.js';
import { holdingUpstream, type HoldingUpstream } from '../../support/holding-upstream.js';
import { json, send } from '../../support/http.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';

const ZEBRA = { q: 'Zebra Quantum', jurisdiction: 'GB' };
const ZEBRA_NUMBER = { jurisdiction: 'GB', companyNumber: '09876543' };
const HOLDINGS = { q: 'holdings', jurisdiction: 'GB' };
const CORRECTED = 'Zebra Quantum Fisheries (Corrected) Ltd';

let stack: Stack | undefined;
let holding: HoldingUpstream | undefined;
afterEach(async () => {
  await stack?.close();
  await holding?.close();
  stack = undefined;
  holding = undefined;
});

async function start(options: StackOptions = {}): Promise<Stack> {
  stack = await startStack({ ...options, gateway: { ...ADMIN, logLevel: 'info', ...options.gateway } });
  return stack;
}

/** The dashboard's search, its companies' names. */
async function names(stack: Stack, search: { q: string; jurisdiction: string }): Promise<string[]> {
  const { body } = await stack.execute(DashboardSearchDocument, search);
  expect(body.errors).toBeUndefined();
  return body.data!.searchCompanies.nodes.map((node) => node.name);
}

async function companyName(stack: Stack): Promise<string | undefined> {
  const { body } = await stack.execute(CompanyByNumberDocument, ZEBRA_NUMBER);
  return body.data?.company?.name;
}

function adminUrl(stack: Stack): string {
  return stack.gateway.adminUrl!;
}

describe('the admin server', () => {
  it('is not started without ADMIN_PORT', async () => {
    const stack = await startStack();
    expect(stack.gateway.adminUrl).toBeUndefined();
    await stack.close();
  });

  it('is not reachable on the public port: POST /purge there is 404 and purges nothing', async () => {
    const stack = await start();
    await names(stack, ZEBRA);
    const searches = stack.lookup.counters.searchRequests;
    const answer = await purge(stack.gateway.url, { all: true });
    expect(answer.status).toBe(404);
    expect(json(answer)).toMatchObject({ errors: [{ extensions: { code: 'NOT_FOUND' } }] });
    await names(stack, ZEBRA);
    expect(stack.lookup.counters.searchRequests).toBe(searches);
    expect(new URL(adminUrl(stack)).port).not.toBe(new URL(stack.gateway.url).port);
  });

  it('refuses a missing or wrong token, purging nothing and logging neither', async () => {
    const stack = await start();
    await names(stack, ZEBRA);
    const searches = stack.lookup.counters.searchRequests;
    const wrong = `${ADMIN_TOKEN.slice(0, -1)}x`;
    for (const authorization of [undefined, `Bearer ${wrong}`, `Basic ${ADMIN_TOKEN}`, ADMIN_TOKEN]) {
      const answer = await purge(adminUrl(stack), { all: true }, authorization === undefined ? { authorization: '' } : { authorization });
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer realm="company-search-admin"');
      expect(json(answer)).toMatchObject({ errors: [{ extensions: { code: 'ADMIN_UNAUTHENTICATED' } }] });
    }
    await names(stack, ZEBRA);
    expect(stack.lookup.counters.searchRequests).toBe(searches);
    expect(stack.logs.filter((line) => line.includes('Admin request refused'))).toHaveLength(4);
    expect(stack.logs.filter((line) => line.includes(ADMIN_TOKEN) || line.includes(wrong))).toEqual([]);
  });

  it.each([
    ['names nothing', {}, 'PURGE_TARGET_MISSING', 'The purge names nothing; name one of {"jurisdiction":"GB","q":"holdings"}'],
    ['names q without its jurisdiction', { q: 'holdings' }, 'PURGE_TARGET_MISSING', 'names q without the jurisdiction it belongs to'],
    [
      'names everything and a jurisdiction',
      { all: true, jurisdiction: 'GB' },
      'PURGE_TARGET_AMBIGUOUS',
      'names all and jurisdiction together',
    ],
    ['names a search and a company', { jurisdiction: 'GB', q: 'a', companyNumber: '1' }, 'PURGE_TARGET_AMBIGUOUS', 'q and companyNumber'],
    ['names a tag and a company', { tag: 'csg:all', companyNumber: '1' }, 'PURGE_TARGET_AMBIGUOUS', 'companyNumber and tag'],
    ['is not JSON', '{"all": tru', 'PURGE_TARGET_INVALID', 'it is not JSON'],
    ['is an array', '[]', 'PURGE_TARGET_INVALID', 'it is not a JSON object'],
    ['has a field no purge takes', { jurisdiction: 'GB', name: 'x' }, 'PURGE_TARGET_INVALID', '"name" is not a field of a purge'],
    ['says all: false', { all: false }, 'PURGE_TARGET_INVALID', 'all must be true, or left out'],
    ['names UK', { jurisdiction: 'UK' }, 'PURGE_TARGET_INVALID', '"UK" is not an ISO 3166-1 alpha-2 country code; did you mean "GB"?'],
    ['names a blank search', { jurisdiction: 'GB', q: '  ' }, 'PURGE_TARGET_INVALID', 'q must not be empty'],
    [
      'names a number as a number',
      { jurisdiction: 'GB', companyNumber: 9876543 },
      'PURGE_TARGET_INVALID',
      'companyNumber must be a string',
    ],
    ['names a tag no answer carries', { tag: 'csg:c:gb:1' }, 'PURGE_TARGET_INVALID', 'tag "csg:c:gb:1" is not one'],
  ])('refuses a body that %s with a coded 400', async (_, body, code, message) => {
    const stack = await start();
    const answer = await purge(adminUrl(stack), body);
    expect(answer.status).toBe(400);
    const [error] = (json(answer) as { errors: { message: string; extensions: { code: string } }[] }).errors;
    expect(error!.extensions.code).toBe(code);
    expect(error!.message).toContain(message);
  });

  it('answers other paths 404, other methods 405, other media types 415 and large bodies 413, all coded', async () => {
    const stack = await start();
    const codeOf = (answer: { text: string }) =>
      (json(answer as never) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code;
    const elsewhere = await send(adminUrl(stack), {
      method: 'POST',
      path: '/graphql',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect([elsewhere.status, codeOf(elsewhere)]).toEqual([404, 'NOT_FOUND']);
    const get = await send(adminUrl(stack), { path: '/purge', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect([get.status, get.headers.allow, codeOf(get)]).toEqual([405, 'POST', 'BAD_REQUEST']);
    const form = await purge(adminUrl(stack), 'all=true', { 'content-type': 'application/x-www-form-urlencoded' });
    expect([form.status, codeOf(form)]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    const large = await purge(adminUrl(stack), { jurisdiction: 'GB', q: 'x'.repeat(20_000) });
    expect([large.status, codeOf(large)]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });
});

describe('a purge on one instance', () => {
  it('drops one search, its windows and answers, and no other: the next asks the upstream once', async () => {
    const stack = await start();
    await names(stack, ZEBRA);
    await names(stack, HOLDINGS);
    const searches = stack.lookup.counters.searchRequests;
    const answer = await purge(adminUrl(stack), { jurisdiction: 'gb', q: '  Zebra   Quantum ' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(json(answer)).toEqual({
      tag: searchTag(ZEBRA),
      dropped: { windows: 1, answers: 1 },
      fleet: false,
      message: 'No REDIS_URL: this instance is the whole fleet, and purged',
    });
    await Promise.all([names(stack, ZEBRA), names(stack, ZEBRA), names(stack, HOLDINGS)]);
    expect(stack.lookup.counters.searchRequests).toBe(searches + 1);
  });

  it('drops every window and answer holding a company, so that its correction shows at once, with the same token', async () => {
    const stack = await start();
    await names(stack, ZEBRA);
    expect(await companyName(stack)).toBe('Zebra Quantum Fisheries Ltd');
    await names(stack, HOLDINGS);
    stack.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });
    const searches = stack.lookup.counters.searchRequests;
    // The register corrected it; the gateway's caches do not know until the purge.
    expect(await names(stack, ZEBRA)).toEqual(['Zebra Quantum Fisheries Ltd']);
    const answer = await purge(adminUrl(stack), ZEBRA_NUMBER);
    expect(json(answer)).toMatchObject({ tag: companyTag('GB', '09876543'), dropped: { windows: 2, answers: 2 } });
    expect(await names(stack, ZEBRA)).toEqual([CORRECTED]);
    expect(await companyName(stack)).toBe(CORRECTED);
    await names(stack, HOLDINGS);
    expect(stack.lookup.counters.searchRequests).toBe(searches + 2);
    expect(stack.lookup.counters.tokenRequests).toBe(1);
  });

  it('drops a jurisdiction, or everything, by a tag GET answers carry, and never the token', async () => {
    const stack = await start();
    await names(stack, ZEBRA);
    await names(stack, { q: 'holdings', jurisdiction: 'IE' });
    expect(json(await purge(adminUrl(stack), { tag: jurisdictionTag('IE') }))).toMatchObject({ dropped: { windows: 1, answers: 1 } });
    expect(json(await purge(adminUrl(stack), { all: true }))).toMatchObject({ tag: 'csg:all', dropped: { windows: 1, answers: 1 } });
    const searches = stack.lookup.counters.searchRequests;
    await names(stack, ZEBRA);
    expect(stack.lookup.counters).toMatchObject({ searchRequests: searches + 1, tokenRequests: 1 });
  });

  it('logs who asked and what it dropped', async () => {
    const stack = await start();
    await names(stack, ZEBRA);
    await purge(adminUrl(stack), { all: true }, { 'user-agent': 'on-call runbook' });
    const line = JSON.parse(stack.logs.find((entry) => entry.includes('"Purged"'))!);
    expect(line).toMatchObject({
      level: 30,
      tag: 'csg:all',
      by: { address: '127.0.0.1', userAgent: 'on-call runbook' },
      windows: 1,
      answers: 1,
      thisInstanceOnly: true,
    });
  });

  it('keeps a fetch under way out of the cache: its waiters get it, a request after the purge makes its own', async () => {
    holding = await holdingUpstream('Zebra Quantum', { answer: true, once: true });
    // Every request runs over the windows: none is answered from the response cache.
    const stack = await start({ upstreamUrl: holding.url, gateway: { responseCache: false } });
    holding.forwardTo(stack.lookup.url);
    // The upstream has answered this search with the company as it was, and its answer is on its way.
    const before = names(stack, ZEBRA);
    await holding.reached;
    stack.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });
    await purge(adminUrl(stack), ZEBRA_NUMBER);
    // Asked after the purge, it does not wait for the fetch from before: it gets the correction.
    expect(await names(stack, ZEBRA)).toEqual([CORRECTED]);
    holding.release();
    expect(await before).toEqual(['Zebra Quantum Fisheries Ltd']);
    // The old answer, arriving last, was not kept: the correction stays.
    expect(await names(stack, ZEBRA)).toEqual([CORRECTED]);
    expect(stack.lookup.counters.searchRequests).toBe(2);
  });

  it('keeps an answer being made during a purge out of the response cache', async () => {
    holding = await holdingUpstream('Zebra Quantum', { answer: true, once: true });
    const stack = await start({ upstreamUrl: holding.url });
    holding.forwardTo(stack.lookup.url);
    const query = { query: print(DashboardSearchDocument), variables: ZEBRA };
    const before = stack.post(query);
    await holding.reached;
    stack.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });
    await purge(adminUrl(stack), { all: true });
    holding.release();
    expect((await before).text).toContain('"Zebra Quantum Fisheries Ltd"');
    // The very same request again: not answered from the response cache with the answer made before the purge.
    expect((await stack.post(query)).text).toContain(CORRECTED);
  });
});
