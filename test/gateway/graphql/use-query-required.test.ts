import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../support/stack.js';
import { allFixtureCompanies } from '../../../src/lookup-service/index.js';

let stack: Stack;
let trusted: Stack;
const TYPENAME_ID = 'sha256:typename';

beforeAll(async () => {
  [stack, trusted] = await Promise.all([
    startStack({ lookup: { companies: allFixtureCompanies } }),
    startStack({
      lookup: { companies: allFixtureCompanies },
      gateway: {
        trustedDocuments: { manifests: [], documents: new Map([[TYPENAME_ID, '{ __typename }']]) },
        allowArbitraryOperations: true,
      },
    }),
  ]);
});
afterAll(() => Promise.all([stack.close(), trusted.close()]));

const ACCEPTS = ['application/json', 'application/graphql-response+json'] as const;
const NO_DOCUMENT = 'The request holds no GraphQL document: send one in "query", such as {"query": "{ __typename }"}';

/** The whole answer but the request id, which differs at each request (and is checked to be the header's). */
function answer(response: { status: number; headers: Record<string, unknown>; text: string }) {
  const body = JSON.parse(response.text) as { errors: { extensions: { requestId?: unknown } }[] };
  for (const error of body.errors) {
    expect(error.extensions.requestId).toBe(response.headers['x-request-id']);
    delete error.extensions.requestId;
  }
  return { status: response.status, contentType: response.headers['content-type'], body };
}

describe('a request without a GraphQL document', () => {
  it.for(
    ACCEPTS.flatMap((accept) =>
      ['{}', '{"query":""}', '{"variables":{}}', '{"query":null}', '{"query":"  \\n"}'].map((body) => [accept, body] as const),
    ),
  )('is refused 400 BAD_REQUEST, saying what to send, under Accept: %s (%s)', async ([accept, body]) => {
    expect(answer(await stack.post(body, { accept }))).toEqual({
      status: 400,
      contentType: `${accept}; charset=utf-8`,
      body: { errors: [{ message: NO_DOCUMENT, extensions: { code: 'BAD_REQUEST' } }] },
    });
  });

  it.for(ACCEPTS)('over GET, is told to send the query parameter (Accept: %s)', async (accept) => {
    expect(answer(await stack.get('/graphql', { accept }))).toEqual({
      status: 400,
      contentType: `${accept}; charset=utf-8`,
      body: {
        errors: [
          {
            message: 'The request holds no GraphQL document: send one in the "query" parameter, such as ?query={__typename}',
            extensions: { code: 'BAD_REQUEST' },
          },
        ],
      },
    });
  });

  it('is told of documentId too where trusted documents run (beside arbitrary operations here), and a documentId alone runs', async () => {
    expect(answer(await trusted.post({}, { accept: 'application/json' }))).toEqual({
      status: 400,
      contentType: 'application/json; charset=utf-8',
      body: {
        errors: [{ message: 'Send "query", or "documentId" with the id of a trusted document', extensions: { code: 'BAD_REQUEST' } }],
      },
    });
    const ran = await trusted.post({ documentId: TYPENAME_ID }, { accept: 'application/json' });
    expect({ status: ran.status, body: JSON.parse(ran.text) }).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });

  it('leaves a request with a document alone, and the gateway serving', async () => {
    const ran = await stack.post({ query: '{ __typename }' }, { accept: 'application/json' });
    expect({ status: ran.status, body: JSON.parse(ran.text) }).toEqual({ status: 200, body: { data: { __typename: 'Query' } } });
  });
});
