import { print } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../../src/gateway/access/api-keys.js';
import { companyTag } from '../../../src/upstream/cache-tags.js';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { ADMIN, purge } from '../../support/admin.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import { send, type HttpAnswer } from '../../support/http.js';
import { startStack, type Stack, type StackOptions } from '../../support/stack.js';
import { startVarnish, type Varnish } from '../../support/varnish.js';

const TTL_MS = 300_000;
const ZEBRA = { q: 'Zebra Quantum', jurisdiction: 'GB' };
const CORRECTED = 'Zebra Quantum Fisheries (Corrected) Ltd';
const KEY = 'k'.repeat(40);
/** Varnish compiles its VCL with the C compiler as it starts: a safety bound for a busy machine. */
const VARNISH_TEST_MS = 120_000;

let stack: Stack | undefined;
let varnish: Varnish | undefined;
let clock: ManualClock;
afterEach(async () => {
  await varnish?.stop();
  await stack?.close();
  varnish = undefined;
  stack = undefined;
});

async function start(gateway: StackOptions['gateway'] = {}): Promise<{ stack: Stack; varnish: Varnish }> {
  clock = manualClock();
  stack = await startStack({ clock, gateway: { ...ADMIN, logLevel: 'info', cacheTtlMs: TTL_MS, ...gateway } });
  varnish = await startVarnish(stack.gateway.url);
  return { stack, varnish };
}

/** The dashboard search by GET (`variables` as given), through Varnish. */
function get(through: Varnish, variables: object = ZEBRA, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  const target = `/graphql?query=${encodeURIComponent(print(DashboardSearchDocument))}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
  return send(through.url, { path: target, headers: { accept: 'application/graphql-response+json', ...headers } });
}

function names(answer: HttpAnswer): string[] {
  return (JSON.parse(answer.text) as { data: { searchCompanies: { nodes: { name: string }[] } } }).data.searchCompanies.nodes.map(
    (node) => node.name,
  );
}

/** Requests the gateway has answered so far: its access log's lines. */
function answered(stack: Stack): number {
  return stack.logs.filter((line) => line.includes('"msg":"request"')).length;
}

describe('Varnish in front of the gateway (deploy/varnish/gateway.vcl)', () => {
  it(
    'serves the second identical GET itself; after a purge by tag, of Varnish and the gateway, the next goes through and is corrected',
    async () => {
      const { stack, varnish } = await start();
      const first = await get(varnish);
      expect([first.status, first.headers['x-cache'], names(first)]).toEqual([200, 'miss', ['Zebra Quantum Fisheries Ltd']]);
      const [requests, searches] = [answered(stack), stack.lookup.counters.searchRequests];
      const second = await get(varnish);
      expect([second.status, second.headers['x-cache'], second.text]).toEqual([200, 'hit', first.text]);
      expect([answered(stack), stack.lookup.counters.searchRequests]).toEqual([requests, searches]);

      stack.lookup.knobs.correctCompany('GB', '09876543', { name: CORRECTED });
      const tag = companyTag('GB', '09876543');
      expect(String(first.headers['cache-tag']).split(',')).toContain(tag);
      await purge(stack.gateway.adminUrl!, { tag });
      expect(await varnish.purgeTag(tag)).toBe(1);
      const corrected = await get(varnish);
      expect([corrected.headers['x-cache'], names(corrected)]).toEqual(['miss', [CORRECTED]]);
      expect([answered(stack), stack.lookup.counters.searchRequests]).toEqual([requests + 1, searches + 1]);
      expect((await get(varnish)).headers['x-cache']).toBe('hit');
    },
    VARNISH_TEST_MS,
  );

  it(
    'never keeps an answer past the freshness the gateway states: with under a second left, every GET goes through',
    async () => {
      const { stack, varnish } = await start({ cacheStaleWhileRevalidateMs: 0, cacheStaleIfErrorMs: 0 });
      await get(varnish);
      // The window has half a second left: an answer built from it now is fresh for 0 whole seconds.
      clock.advance(TTL_MS - 500);
      const spelledApart = { jurisdiction: 'GB', q: 'Zebra Quantum' };
      const late = await get(varnish, spelledApart);
      expect(late.headers['cache-control']).toBe('public, max-age=0, stale-while-revalidate=0, stale-if-error=0');
      const requests = answered(stack);
      const again = await get(varnish, spelledApart);
      expect([again.headers['x-cache'], again.text]).toEqual(['miss', late.text]);
      expect(answered(stack)).toBe(requests + 1);
    },
    VARNISH_TEST_MS,
  );

  it(
    'never keeps a private answer, given where access control decides who gets it',
    async () => {
      const { stack, varnish } = await start({ apiKeys: [{ id: 'app', sha256: hashApiKey(KEY) }], allowAnonymous: false });
      const first = await get(varnish, ZEBRA, { 'x-api-key': KEY });
      expect(first.headers['cache-control']).toMatch(/^private, /);
      const requests = answered(stack);
      const anonymous = await get(varnish);
      expect(anonymous.status).toBe(401);
      expect(answered(stack)).toBe(requests + 1);
    },
    VARNISH_TEST_MS,
  );
});
