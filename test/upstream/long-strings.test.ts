/**
 * One upstream record can no longer become answers many times its size.
 * Found by the review of issue 27: one result whose name was 1,000,000
 * characters (the body under its 1 MiB cap) and an anonymous query within
 * every limit (15 aliases of searchCompanies with nodes and edges, plus
 * company) made 200 answers of 33 MB each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/gateway/config/gateway-config.js';
import { COMPANY } from '../../src/upstream/company.js';
import { LONG_NAME, LONG_NAME_REQUEST, TARGET } from '../support/long-name-request.js';
import { startStack, type Stack } from '../support/stack.js';

/** MAX_RESPONSE_BYTES unless the environment says otherwise. */
const DEFAULT_MAX_RESPONSE_BYTES = readConfig({}).maxResponseBytes;

/** A run of LONG_NAME's padding, to look for in an answer: no answer may hold even this much of the name. */
const RUN = '~'.repeat(1_000);
/** The upstream sends TARGET's name 1,000,000 characters long. */
function longName(stack: Stack): void {
  stack.lookup.knobs.mapResults = (results) =>
    results.map((result) => (result.companyNumber === TARGET.companyNumber ? { ...result, name: LONG_NAME } : result));
}

/** The upstream sends every name as long as the gateway takes one (COMPANY.name's cap). */
function namesAtTheirCap(stack: Stack): void {
  stack.lookup.knobs.mapResults = (results) =>
    results.map((result) => ({ ...result, name: result.name.padEnd(COMPANY.name.maxLength, '.') }));
}

let stack: Stack;
let small: Stack;
beforeAll(async () => {
  [stack, small] = await Promise.all([
    startStack({ gateway: { rateLimitPerMinute: 0 } }),
    startStack({ gateway: { rateLimitPerMinute: 0, maxResponseBytes: 64 * 1024 } }),
  ]);
  longName(stack);
  namesAtTheirCap(small);
});
afterAll(() => Promise.all([stack.close(), small.close()]));

describe('an upstream name longer than its cap', () => {
  it('leaves its company out of every answer, once per field that met it, and names the field in the log', async () => {
    const { status, text } = await stack.post(LONG_NAME_REQUEST);
    expect(status).toBe(200);
    expect(text).not.toContain(RUN);
    expect(Buffer.byteLength(text)).toBeLessThan(DEFAULT_MAX_RESPONSE_BYTES);
    const { data, errors } = JSON.parse(text);
    const position = 2;
    for (let k = 0; k < 15; k++) {
      const connection = data[`a${k}`];
      expect(connection.nodes).toHaveLength(49);
      expect(connection.nodes.map((node: { companyNumber: string }) => node.companyNumber)).not.toContain(TARGET.companyNumber);
      expect(connection.edges).toHaveLength(49);
    }
    expect(data.company).toBeNull();
    // One partial error per connection: the result is left out, as one without a readable name.
    expect(errors.filter((error: { path: string[] }) => error.path[0]!.startsWith('a'))).toEqual(
      Array.from({ length: 15 }, (_, k) => ({
        message: `The company lookup service sent result ${position + 1} of this search without a readable name or company number; it is left out`,
        locations: [expect.any(Object)],
        path: [`a${k}`],
        extensions: { requestId: expect.any(String), code: 'UPSTREAM_INVALID_FIELD', upstreamField: `results[${position}]` },
      })),
    );
    const warnings = stack.logs
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'Upstream sent malformed fields; read them as null');
    // The search's window, and the lookup of the company by its number, where it is the one result.
    expect(warnings.map((warning) => warning.fields)).toEqual(expect.arrayContaining([[`results[${position}].name`], ['results[0].name']]));
  });
});

describe('MAX_RESPONSE_BYTES', () => {
  it('refuses, whole and coded, an answer over it: names at their cap under every alias', async () => {
    const { status, text, headers } = await small.post(LONG_NAME_REQUEST);
    expect(status).toBe(400);
    expect(headers['content-type']).toMatch(/^application\/graphql-response\+json/);
    expect(JSON.parse(text)).toEqual({
      errors: [
        {
          message:
            'The answer to this request would be more than 65536 bytes; at most that many are sent (MAX_RESPONSE_BYTES). Select fewer fields, use fewer aliases, or ask for smaller pages',
          extensions: { requestId: expect.any(String), code: 'RESPONSE_TOO_LARGE', maxResponseBytes: 65_536 },
        },
      ],
    });
  });

  it('answers a client that accepts only application/json 200, as for any error of a well-formed request, and keeps no such answer', async () => {
    const runs = () => small.logs.filter((line) => line.includes('"Processing GraphQL Parameters"')).length;
    const before = runs();
    for (let i = 0; i < 2; i++) {
      const { status, text } = await small.post(LONG_NAME_REQUEST, { accept: 'application/json' });
      expect(status).toBe(200);
      expect(JSON.parse(text).errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
    }
    // Both ran: the response cache kept neither.
    expect(runs() - before).toBe(2);
  });

  it('admits the same request where its answer fits, and refuses it where it does not', async () => {
    const request = { query: LONG_NAME_REQUEST.query.replaceAll('first: 50', 'first: 3') };
    const { status, text } = await small.post(request);
    expect(status).toBe(200);
    const exact = Buffer.byteLength(text);
    expect(exact).toBeLessThan(64 * 1024);
    const fits = await startStack({ gateway: { rateLimitPerMinute: 0, maxResponseBytes: 16 * 1024 } });
    try {
      namesAtTheirCap(fits);
      const answer = await fits.post(request);
      // The same answer, over 16 KiB: refused.
      expect(exact).toBeGreaterThan(16 * 1024);
      expect(JSON.parse(answer.text).errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
    } finally {
      await fits.close();
    }
  });
});
