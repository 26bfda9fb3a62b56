import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';

/** Stands for anything a client may put in a body: it must come back in no answer and no log line. */
const MARKER = 'do-not-echo-7f3a';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ gateway: { rateLimitPerMinute: 0, nodeEnv: 'production', allowAnonymous: true } });
});
afterAll(() => stack.close());

describe('a body that is not JSON', () => {
  it.each([
    // V8 names a position here, and Yoga's parser quoted the whole body after it.
    [
      'cut short after 96,000 characters',
      `{"query": "{ __typename }", "variables": {"q": "${MARKER.repeat(6_000)}"`,
      "Expected ',' or '}' after property value in JSON at position 96049",
    ],
    // V8 names no position here, and quotes the text around the character instead.
    ['with a bare word in it', `{"query": "{ __typename }", "variables": {"q": ${MARKER}}}`, "Unexpected token 'd'"],
    ['one of the words V8 quotes whole', 'undefined', 'its first characters are not JSON'],
  ])('is refused %s, saying where it breaks and repeating none of it', async (_, body, problem) => {
    const { status, text } = await stack.post(body);
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      errors: [
        { message: `The request body is not valid JSON: ${problem}`, extensions: { requestId: expect.any(String), code: 'BAD_REQUEST' } },
      ],
    });
    expect(text).not.toContain(MARKER);
    expect(stack.logs.join('\n')).not.toContain(MARKER);
  });
});
