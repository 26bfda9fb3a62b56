import { print } from 'graphql';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../../generated/graphql.js';
import { launchChromium, type Browser } from '../../support/browser.js';
import { manualClock, type ManualClock } from '../../support/clock.js';
import { startStack, type Stack } from '../../support/stack.js';

const TTL_MS = 300_000;
/** Safety bound on anything the browser does; a busy machine takes seconds to start Chromium. */
const BROWSER_TIMEOUT_MS = 60_000;

interface Served {
  method: string;
  path: string;
  status: number;
}

let browser: Browser;
let page: Page;
let stack: Stack;
let clock: ManualClock;

beforeAll(async () => {
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
}, BROWSER_TIMEOUT_MS);
afterAll(() => browser?.close());
afterEach(() => stack?.close());

async function start(): Promise<void> {
  clock = manualClock();
  // No stale periods: what the browser may keep ends with the data's freshness.
  stack = await startStack({
    clock,
    gateway: { logLevel: 'info', cacheTtlMs: TTL_MS, cacheStaleWhileRevalidateMs: 0, cacheStaleIfErrorMs: 0 },
  });
  // A page of the gateway's own origin, as an app served beside it: its fetches are same-origin.
  await page.goto(`${stack.gateway.url}/health`);
}

/** The GETs of /graphql the gateway answered, from its access log. */
function graphqlGets(): Served[] {
  return stack.logs
    .map((line) => JSON.parse(line) as Served & { msg: string })
    .filter((entry) => entry.msg === 'request' && entry.method === 'GET' && entry.path.startsWith('/graphql'));
}

/** The page fetches the dashboard search (`variables` as given) twice, one after the other, as an app's two screens do. */
function fetchTwice(variables: object): Promise<[string, string]> {
  const target = `/graphql?query=${encodeURIComponent(print(DashboardSearchDocument))}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
  return page.evaluate(async (url): Promise<[string, string]> => {
    const first = await (await fetch(url)).text();
    const second = await (await fetch(url)).text();
    return [first, second];
  }, target);
}

describe("Chromium's HTTP cache", () => {
  it(
    'serves the second fetch of a search from its cache, within the freshness the gateway states',
    async () => {
      await start();
      const [first, second] = await fetchTwice({ q: 'Zebra Quantum', jurisdiction: 'GB' });
      expect(second).toBe(first);
      expect(JSON.parse(first).data.searchCompanies.nodes).toEqual([
        { name: 'Zebra Quantum Fisheries Ltd', companyNumber: '09876543', status: expect.any(String) },
      ]);
      expect(graphqlGets().map((served) => served.status)).toEqual([200]);
    },
    BROWSER_TIMEOUT_MS * 2,
  );

  it(
    'asks the gateway again once that freshness is spent, and gets 304 for the copy it has',
    async () => {
      await start();
      await fetchTwice({ q: 'Zebra Quantum', jurisdiction: 'GB' });
      // Half a second of the window's freshness left: a new answer built from it is fresh for 0 whole seconds.
      clock.advance(TTL_MS - 500);
      const [first, second] = await fetchTwice({ jurisdiction: 'GB', q: 'Zebra Quantum' });
      expect(second).toBe(first);
      expect(graphqlGets().map((served) => served.status)).toEqual([200, 200, 304]);
    },
    BROWSER_TIMEOUT_MS * 2,
  );
});
