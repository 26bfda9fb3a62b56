import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PATH } from '../../../src/gateway/paths.js';
import { launchChromium, type Browser } from '../../support/browser.js';
import { startCountingProxy, type CountingProxy } from '../../support/counting-proxy.js';
import { send } from '../../support/http.js';
import { startStack, type Stack } from '../../support/stack.js';

/** What the issue allows a first visit to move: the page, GraphiQL's files, its schema and the example's answer. */
const FIRST_LOAD_MAX_BYTES = 2_000_000;
/** More than the headers of an answer with a file of GraphiQL's. */
const REFETCH_HEADERS_BYTES = 1_024;
/** A second visit moves the page (1 KB) and the schema GraphiQL asks for (36 KB), nothing of the rest. */
const SECOND_LOAD_MAX_BYTES = 100_000;
/** Safety bound on anything the browser does; a busy machine takes seconds to start Chromium and parse 5 MB of script. */
const BROWSER_TIMEOUT_MS = 60_000;

interface Served {
  method: string;
  path: string;
  status: number;
}

/** The gateway's access log: every request it answered, in order. */
function served(stack: Stack): Served[] {
  return stack.logs.map((line) => JSON.parse(line) as Served & { msg: string }).filter((entry) => entry.msg === 'request');
}

/** The text of GraphiQL's result pane, its spacing (Monaco writes no-break spaces) as plain spaces. */
async function resultPane(): Promise<string> {
  return ((await page.locator('.graphiql-response').textContent()) ?? '').replace(/\s+/g, ' ');
}

let stack: Stack;
let proxy: CountingProxy;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  stack = await startStack({ gateway: { logLevel: 'info' } });
  proxy = await startCountingProxy(stack.gateway.url);
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
}, BROWSER_TIMEOUT_MS);
afterAll(async () => {
  await browser?.close();
  await proxy?.close();
  await stack?.close();
});

describe('GraphiQL in Chromium', () => {
  it(
    'opens within 2 MB, runs the example query with its run button and shows the data',
    async () => {
      await page.goto(`${proxy.url}${GRAPHQL_PATH}`);
      await page.locator('.graphiql-execute-button').click();
      await expect.poll(resultPane, { timeout: BROWSER_TIMEOUT_MS }).toContain('{ "data": { "searchCompanies": { "totalCount": ');
      expect(await resultPane()).toContain('"name": ');
      expect(await resultPane()).not.toContain('"errors"');

      // Everything the page loads, its three editor workers included, has arrived: the byte count is the whole first visit.
      const files = (await page.content()).match(/\/graphiql\/[\w.]+/g) ?? [];
      expect(files.length).toBeGreaterThanOrEqual(6);
      await expect
        .poll(() => files.filter((file) => !served(stack).some((request) => request.path === file)), { timeout: BROWSER_TIMEOUT_MS })
        .toEqual([]);
      expect(proxy.bytesToClients).toBeGreaterThan(1_000_000);
      // On a loaded machine the editor may start a worker again, and fetch its file a second time: what such a second
      // fetch moved is the browser's doing, not the page's weight.
      const fetched = served(stack).map((request) => request.path);
      const again = fetched.filter((path, i) => path.startsWith('/graphiql/') && fetched.indexOf(path) < i);
      let refetchedBytes = 0;
      for (const path of again) {
        const copy = await send(stack.gateway.url, { path, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
        refetchedBytes += copy.body.length + REFETCH_HEADERS_BYTES;
      }
      expect(proxy.bytesToClients - refetchedBytes, JSON.stringify(served(stack))).toBeLessThanOrEqual(FIRST_LOAD_MAX_BYTES);
      expect(served(stack).filter((request) => request.status !== 200)).toEqual([]);
    },
    BROWSER_TIMEOUT_MS * 2,
  );

  it(
    'on a second visit, sends none of its files again: the browser keeps them',
    async () => {
      const before = served(stack).length;
      const bytesBefore = proxy.bytesToClients;
      await page.goto(`${proxy.url}${GRAPHQL_PATH}`);
      await page.locator('.graphiql-execute-button').waitFor();
      // GraphiQL asks for the schema once it runs: by then everything it loads has been asked for.
      await expect
        .poll(
          () =>
            served(stack)
              .slice(before)
              .some((request) => request.method === 'POST'),
          { timeout: BROWSER_TIMEOUT_MS },
        )
        .toBe(true);
      expect(proxy.bytesToClients - bytesBefore).toBeLessThan(SECOND_LOAD_MAX_BYTES);
      const again = served(stack).slice(before);
      // GraphiQL posts its queries to /graphql, which drops the browser's copy of the page there (RFC 9111, 4.4): the page, 1 KB, comes again.
      expect(again.filter((request) => request.method === 'GET' && request.path === GRAPHQL_PATH)).toHaveLength(1);
      expect(again.filter((request) => request.path.startsWith('/graphiql/') && request.status !== 304)).toEqual([]);
    },
    BROWSER_TIMEOUT_MS,
  );
});
