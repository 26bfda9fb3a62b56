import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json } from '../../support/http.js';
import { rawExchange } from '../../support/raw-connection.js';
import { startStack, type Stack } from '../../support/stack.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const search = (q: string) => ({ query: `{ searchCompanies(q: "${q}", jurisdiction: "GB") { totalCount } }` });

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.close());

/** The log lines naming `requestId`, by message. */
function linesOf(requestId: string): string[] {
  return stack.logs
    .map((line) => JSON.parse(line) as { requestId?: string; msg: string })
    .filter((line) => line.requestId === requestId)
    .map((line) => line.msg);
}

describe('request ids', () => {
  it('keeps a short, plain x-request-id: in the answer header, the access line and every error', async () => {
    const id = 'edge-7f3a.42_b';
    const answer = await stack.post({ query: '{ searchCompanies(q: "", jurisdiction: "GB") { totalCount } }' }, { 'x-request-id': id });
    expect(answer.headers['x-request-id']).toBe(id);
    const { errors } = json(answer) as { errors: { extensions: Record<string, unknown> }[] };
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((error) => error.extensions.requestId)).toEqual(errors.map(() => id));
    expect(linesOf(id)).toEqual(['request']);
  });

  it('replaces an id that is too long or not plain, and makes one when there is none', async () => {
    const sent = ['a'.repeat(129), 'two words', 'id"}{"level":60', 'é', undefined];
    const got = [];
    for (const id of sent) {
      const answer = await stack.get('/health', id === undefined ? {} : { 'x-request-id': id });
      got.push(answer.headers['x-request-id']);
    }
    for (const id of got) expect(id).toMatch(UUID);
    expect(new Set(got).size).toBe(sent.length);
    expect((await stack.get('/health', { 'x-request-id': 'a'.repeat(128) })).headers['x-request-id']).toBe('a'.repeat(128));
  });

  it('gives a refusal the id in its body and its log line', async () => {
    const answer = await stack.post(search('refused'), { 'content-type': 'application/xml', 'x-request-id': 'refused-1' });
    expect(answer.status).toBe(415);
    expect(answer.headers['x-request-id']).toBe('refused-1');
    expect(json(answer)).toMatchObject({ errors: [{ extensions: { code: 'UNSUPPORTED_MEDIA_TYPE', requestId: 'refused-1' } }] });
    expect(linesOf('refused-1')).toEqual(['Request refused', 'request']);
  });

  it('gives a request Node could not read an id of its own, in header and body', async () => {
    const received = await rawExchange(stack.gateway.url, 'NOT HTTP\r\n\r\n');
    const id = /\r\nx-request-id: ([^\r]+)\r\n/.exec(received)?.[1];
    expect(id).toMatch(UUID);
    expect(received).toContain(`"requestId":"${id}"`);
  });

  it('never serves a cached answer with another request id: answers with errors are not reused, and reused ones hold none', async () => {
    const cached = [
      await stack.post(search('Zebra Quantum'), { 'x-request-id': 'first' }),
      await stack.post(search('Zebra Quantum'), { 'x-request-id': 'second' }),
    ];
    expect(cached.map((answer) => answer.headers['x-request-id'])).toEqual(['first', 'second']);
    expect(cached[1]!.text).toBe(cached[0]!.text);
    expect(cached[1]!.text).not.toContain('requestId');

    const failing = { query: '{ searchCompanies(q: "Zebra Quantum", jurisdiction: "GB") { totalCount nope } }' };
    const ids = [];
    for (const id of ['bad-1', 'bad-2']) {
      const { errors } = json(await stack.post(failing, { 'x-request-id': id })) as { errors: { extensions: { requestId: string } }[] };
      ids.push(errors[0]!.extensions.requestId);
    }
    expect(ids).toEqual(['bad-1', 'bad-2']);
  });
});
