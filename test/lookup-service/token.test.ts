import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFixtureCompanies, startLookupService } from '../../src/lookup-service/index.js';
import type { LookupService } from '../../src/lookup-service/index.js';
import { tokenRequestFields } from '../../src/upstream/token-request.js';
import { json, send } from '../support/http.js';
import { searchRequest, tokenRequest } from '../support/lookup-client.js';

let service: LookupService;

beforeAll(async () => {
  service = await startLookupService({ companies: allFixtureCompanies, clientId: 'test-client', clientSecret: 'test-secret' });
});

afterAll(() => service.close());

function postToken(body: string, contentType = 'application/json') {
  return send(`${service.url}/v1/oauth/token`, { method: 'POST', headers: { 'content-type': contentType }, body });
}

describe('POST /v1/oauth/token', () => {
  it('issues an opaque Bearer token for the right credentials, not to be cached', async () => {
    const answer = await tokenRequest(service);
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.text)));
    expect(json(answer)).toEqual({ access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), token_type: 'Bearer', expires_in: 3600 });
    expect(Object.keys(json(answer) as object)).toEqual(['access_token', 'token_type', 'expires_in']);
  });

  it('issues a different token on every request, each one usable', async () => {
    const tokens = await Promise.all([tokenRequest(service), tokenRequest(service)]).then((answers) =>
      answers.map((answer) => (json(answer) as { access_token: string }).access_token),
    );
    expect(tokens[0]).not.toBe(tokens[1]);
    for (const token of tokens)
      expect((await searchRequest(service, { q: 'zebra', jurisdiction: 'GB', pageSize: '1' }, token)).status).toBe(200);
  });

  it('accepts a charset parameter on the JSON content type', async () => {
    const body = JSON.stringify(tokenRequestFields(service.credentials));
    expect((await postToken(body, 'Application/JSON; charset=utf-8')).status).toBe(200);
  });

  it.each([
    [{ client_id: undefined }, 'client_id is required'],
    [{ client_id: '' }, 'client_id is required'],
    [{ client_secret: undefined }, 'client_secret is required'],
    [{ grant_type: undefined }, 'grant_type is required'],
    [{ client_id: 42 }, 'client_id must be a string'],
    [{ grant_type: 'password' }, 'grant_type must be client_credentials'],
    [{ grant_type: 'authorization_code', client_secret: 'wrong' }, 'grant_type must be client_credentials'],
  ])('answers 400 for %j: %s', async (fields, message) => {
    const answer = await tokenRequest(service, fields);
    expect({ status: answer.status, body: json(answer) }).toEqual({ status: 400, body: { message } });
  });

  it.each(['{"client_id": ', '[1, 2]', 'null', '"client_credentials"', ''])(
    'answers 400 for the body %j, which is no JSON object',
    async (body) => {
      const answer = await postToken(body);
      expect({ status: answer.status, body: json(answer) }).toEqual({
        status: 400,
        body: { message: 'Request body must be a JSON object' },
      });
    },
  );

  it('answers 415 for a form-encoded or untyped body', async () => {
    const form = await postToken(
      'client_id=test-client&client_secret=test-secret&grant_type=client_credentials',
      'application/x-www-form-urlencoded',
    );
    expect({ status: form.status, body: json(form) }).toEqual({ status: 415, body: { message: 'Content-Type must be application/json' } });
    const untyped = await send(`${service.url}/v1/oauth/token`, { method: 'POST', body: '{}' });
    expect(untyped.status).toBe(415);
  });

  it('answers 413 for a body over 16 KiB, and the connection stays usable', async () => {
    const answer = await tokenRequest(service, { padding: 'x'.repeat(17 * 1024) });
    expect({ status: answer.status, body: json(answer) }).toEqual({
      status: 413,
      body: { message: 'Request body must not exceed 16384 bytes' },
    });
    expect((await tokenRequest(service)).status).toBe(200);
  });

  it('answers 413 for a chunked body without Content-Length once it passes 16 KiB, and the connection stays usable', async () => {
    const kibibytes = Readable.from(Array.from({ length: 20 }, () => Buffer.alloc(1024, ' ')));
    const answer = await send(`${service.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: kibibytes,
    });
    expect({ status: answer.status, body: json(answer) }).toEqual({
      status: 413,
      body: { message: 'Request body must not exceed 16384 bytes' },
    });
    expect((await tokenRequest(service)).status).toBe(200);
  });

  it.each([[{ client_secret: 'wrong' }], [{ client_id: 'someone-else' }], [{ client_id: 'test-secret', client_secret: 'test-client' }]])(
    'answers 401 for bad credentials %j',
    async (fields) => {
      const answer = await tokenRequest(service, fields);
      expect({ status: answer.status, body: json(answer), authenticate: answer.headers['www-authenticate'] }).toEqual({
        status: 401,
        body: { message: 'Invalid client credentials' },
        authenticate: undefined,
      });
    },
  );

  it('answers 405 with Allow for another method', async () => {
    const answer = await send(`${service.url}/v1/oauth/token`);
    expect({ status: answer.status, allow: answer.headers.allow, body: json(answer) }).toEqual({
      status: 405,
      allow: 'POST',
      body: { message: 'Method GET is not allowed on /v1/oauth/token; use POST' },
    });
  });
});
