import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send } from '../../support/http.js';
import { startStack, type Stack } from '../../support/stack.js';

const SECRET = 'shared-secret-0123456789abcdef0123456789';
const ISSUER = 'https://auth.example.com/';
const AUDIENCE = 'company-search';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({
    gateway: { jwtIssuer: ISSUER, jwtAudience: AUDIENCE, jwtSecret: SECRET, allowAnonymous: false, rateLimitPerMinute: 0 },
  });
});
afterAll(() => stack.close());

/** A token correct in every other way, its `sub` set as given (SignJWT's setSubject would insist on a string). */
function tokenWithSubject(sub: unknown): Promise<string> {
  return new SignJWT({ sub } as Record<string, unknown>)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
}

async function postWith(token: string) {
  const response = await send(stack.gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  return { status: response.status, headers: response.headers, body: JSON.parse(response.text) as unknown };
}

describe("a bearer token's sub", () => {
  it('must be a non-empty string: an object, a number, an empty string or an array gets 401 UNAUTHENTICATED saying so', async () => {
    expect(await postWith(await tokenWithSubject('alice'))).toMatchObject({ status: 200, body: { data: { __typename: 'Query' } } });
    const reason = 'The bearer token\'s "sub" claim must be a non-empty string';
    const message = `${reason}; get a new token from the issuer this gateway trusts`;
    for (const sub of [{ id: 'alice' }, 42, '', ['alice']]) {
      const response = await postWith(await tokenWithSubject(sub));
      expect(response, JSON.stringify(sub)).toMatchObject({
        status: 401,
        body: { errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }] },
        headers: {
          'www-authenticate': `Bearer realm="company-search", error="invalid_token", error_description="${reason.replace(/"/g, '\\"')}"`,
        },
      });
    }
  });
});
