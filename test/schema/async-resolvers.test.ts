import { type GraphQLFieldResolver, defaultFieldResolver, isObjectType } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ASYNC_RESOLVERS } from '../../src/schema/async-resolvers.js';
import { schema } from '../../src/schema/index.js';
import { fixtureCompanies } from '../../src/lookup-service/index.js';
import { startStack, type Stack } from '../support/stack.js';

/** Every field of the schema's own object types, as `Type.field`. */
const everyField: string[] = [];
/** The fields resolved so far, and whether their resolver returned a promise. */
const returnedPromise = new Map<string, boolean>();

for (const type of Object.values(schema.getTypeMap())) {
  if (!isObjectType(type) || type.name.startsWith('__')) continue;
  for (const field of Object.values(type.getFields())) {
    const name = `${type.name}.${field.name}`;
    everyField.push(name);
    const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
    field.resolve = (...args) => {
      const value = resolve(...args);
      returnedPromise.set(name, (returnedPromise.get(name) ?? false) || typeof (value as PromiseLike<unknown>)?.then === 'function');
      return value;
    };
  }
}

const COMPANY_FIELDS = `id name companyNumber jurisdiction status statusText incorporatedDate isPlatformMember
  address { formatted streetLine1 streetLine2 city region postcode country countryCode latitude longitude }
  previousNames { name startDate endDate } avatar { image initials }`;

let stack: Stack;
beforeAll(async () => {
  // graphql-js, the executor whose order compiled execution keeps, runs the resolvers watched here.
  stack = await startStack({ compiledExecution: false });
});
afterAll(async () => {
  await stack?.close();
});

it('schema/async-resolvers.ts names exactly the resolvers that return a promise, every field of the schema resolved', async () => {
  const { companyNumber } = fixtureCompanies.withPreviousNames;
  const answer = await stack.post({
    query: `query($number: String!, $id: ID!) {
      searchCompanies(q: "ferncastle", jurisdiction: "GB", pageSize: 5) {
        totalCount reachableCount fetchedAt stale
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node { ${COMPANY_FIELDS} } }
        nodes { name }
      }
      company(jurisdiction: "GB", companyNumber: $number) { ${COMPANY_FIELDS} }
      node(id: $id) { id }
    }`,
    variables: { number: companyNumber, id: Buffer.from(`Company:GB:${companyNumber}`).toString('base64') },
  });
  expect(JSON.parse(answer.text)).not.toHaveProperty('errors');
  // Each field was resolved: a field no query reached would prove nothing.
  expect([...returnedPromise.keys()].sort()).toEqual([...everyField].sort());
  expect(everyField.filter((name) => returnedPromise.get(name)).sort()).toEqual([...ASYNC_RESOLVERS].sort());
});
