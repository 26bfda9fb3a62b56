import { afterEach, describe, expect, it } from 'vitest';
import { DashboardSearchDocument } from '../generated/graphql.js';
import { freshSearch } from '../support/searches.js';
import { startStack, type Stack } from '../support/stack.js';

/** How much of an upstream error's message reaches the log (window-reading.ts). */
const LOGGED_MESSAGE_LENGTH = 200;
/** How much of a secret may not show anywhere: enough to narrow a guess. */
const SECRET_PREFIX_LENGTH = 8;

let stack: Stack | undefined;
afterEach(async () => {
  await stack?.close();
  stack = undefined;
});

describe('a search refused with a message that echoes a secret', () => {
  it.each(['client secret', 'service token'] as const)(
    'logs none of the %s, even where the logged part of the message ends inside it',
    async (which) => {
      stack = await startStack({ gateway: { upstreamRetries: 0, rateLimitPerMinute: 0 } });
      await stack.execute(DashboardSearchDocument, freshSearch());
      const secret = which === 'client secret' ? stack.lookup.credentials.clientSecret : stack.lookup.knobs.issuedTokens()[0]!;
      expect(secret.length).toBeGreaterThan(2 * SECRET_PREFIX_LENGTH);
      // The message is cut where half of the secret is in and half out.
      const padding = 'x'.repeat(LOGGED_MESSAGE_LENGTH - Math.floor(secret.length / 2));
      stack.lookup.knobs.failSearch({ status: 400, body: JSON.stringify({ message: `${padding}${secret}` }) }, Infinity);
      stack.logs.length = 0;

      const { body } = await stack.execute(DashboardSearchDocument, freshSearch());
      expect(body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_REJECTED_QUERY');
      const rejection = stack.logs.find((line) => line.includes('Company lookup service rejected a search'));
      expect(rejection).toBeDefined();
      expect(stack.logs.filter((line) => line.includes(secret.slice(0, SECRET_PREFIX_LENGTH)))).toEqual([]);
    },
  );
});
