import { beforeAll, describe, expect, it } from 'vitest';
import { describeConfig, readConfig } from '../../src/gateway/config/gateway-config.js';
import type { Fault, LookupServiceKnobs } from '../../src/lookup-service/index.js';
import { send, type HttpAnswer } from '../support/http.js';
import { startStack, type Stack } from '../support/stack.js';

/**
 * Drives the gateway through normal traffic and every fault the lookup service
 * can produce, keeping every answer and log line, then looks in all of them,
 * in GraphiQL's page and in the printed configuration for the client secret
 * and every token the lookup service issued. Each scenario gets a stack of its
 * own, so that no breaker or cooldown left by an earlier fault keeps the next
 * one from reaching the upstream.
 */
const STATUSES = [400, 401, 403, 404, 408, 429, 500, 502, 503, 504];
const KINDS = ['malformed-json', 'wrong-shape', 'drop-connection', 'hang'] as const;

interface Scenario {
  name: string;
  /** Sets the lookup service up to fail before the second search; `sent` is the secret and token the gateway sent it. */
  fault: (knobs: LookupServiceKnobs, sent: string) => void;
}

const scenarios: Scenario[] = [
  { name: 'normal traffic', fault: () => {} },
  { name: 'every token revoked', fault: (knobs) => knobs.revokeTokens() },
  {
    name: 'search answered 400 echoing what the gateway sent',
    fault: (knobs, sent) => knobs.failSearch({ status: 400, body: JSON.stringify({ message: `Bad request from ${sent}` }) }, Infinity),
  },
  ...STATUSES.map((status) => ({
    name: `search answered ${status}`,
    fault: (knobs: LookupServiceKnobs) => knobs.failSearch({ status }, Infinity),
  })),
  ...KINDS.map((kind) => ({
    name: `search fault ${kind}`,
    fault: (knobs: LookupServiceKnobs) => knobs.failSearch({ kind } as Fault, Infinity),
  })),
  ...STATUSES.map((status) => ({
    name: `token answered ${status}`,
    fault: (knobs: LookupServiceKnobs) => {
      knobs.revokeTokens();
      knobs.failToken({ status }, Infinity);
    },
  })),
  ...KINDS.map((kind) => ({
    name: `token fault ${kind}`,
    fault: (knobs: LookupServiceKnobs) => {
      knobs.revokeTokens();
      knobs.failToken({ kind } as Fault, Infinity);
    },
  })),
];

interface Outcome {
  name: string;
  answers: HttpAnswer[];
  logs: string[];
  secrets: string[];
  tokenRequests: number;
}

const outcomes: Outcome[] = [];

async function search(stack: Stack, n: number): Promise<HttpAnswer> {
  const query = `{ searchCompanies(q: "holdings ${n}", jurisdiction: "GB") { totalCount nodes { name } } company(jurisdiction: "GB", companyNumber: "${n}") { name } }`;
  return send(stack.gateway.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
  });
}

async function run({ name, fault }: Scenario): Promise<Outcome> {
  const stack = await startStack({
    gateway: { logLevel: 'trace', upstreamHeadersTimeoutMs: 300, upstreamBodyTimeoutMs: 300, rateLimitPerMinute: 0 },
  });
  try {
    const tokens = new Set<string>();
    const answers = [await search(stack, 1)];
    for (const token of stack.lookup.knobs.issuedTokens()) tokens.add(token);
    fault(stack.lookup.knobs, [stack.lookup.credentials.clientSecret, ...tokens].join(' '));
    answers.push(await search(stack, 2));
    stack.lookup.knobs.clearFaults();
    answers.push(await search(stack, 3));
    for (const token of stack.lookup.knobs.issuedTokens()) tokens.add(token);
    answers.push(await send(stack.gateway.graphqlUrl, { headers: { accept: 'text/html' } }));
    return {
      name,
      answers,
      logs: [...stack.logs],
      secrets: [stack.lookup.credentials.clientSecret, ...tokens],
      tokenRequests: stack.lookup.counters.tokenRequests,
    };
  } finally {
    await stack.close();
  }
}

/**
 * Scenarios run a few at a time: each mostly waits (on timeouts, backoffs and
 * its own loopback calls). Not all at once: thirty stacks starting together
 * could stall the event loop past the 300 ms upstream timeouts, and a token
 * request timed out would leave a scenario without the token it checks for.
 */
const SCENARIOS_AT_ONCE = 6;

beforeAll(async () => {
  for (let first = 0; first < scenarios.length; first += SCENARIOS_AT_ONCE) {
    outcomes.push(...(await Promise.all(scenarios.slice(first, first + SCENARIOS_AT_ONCE).map(run))));
  }
}, 120_000);

describe('the client secret and service tokens never show', () => {
  it('under normal traffic and every fault the lookup service can produce', () => {
    expect(outcomes.map((outcome) => outcome.name)).toEqual(scenarios.map((scenario) => scenario.name));
    expect(outcomes.every((outcome) => outcome.secrets.length >= 2)).toBe(true);
    expect(outcomes.find((outcome) => outcome.name === 'token answered 500')!.tokenRequests).toBeGreaterThan(1);
  });

  it.each(scenarios.map((scenario) => scenario.name))('%s: in no answer, body or header, and in no log line', (name) => {
    const { answers, logs, secrets } = outcomes.find((outcome) => outcome.name === name)!;
    for (const [index, answer] of answers.entries()) {
      const text = `${JSON.stringify(answer.headers)}\n${answer.text}`;
      for (const secret of secrets) expect(text.includes(secret), `answer ${index} shows ${secret.slice(0, 6)}…`).toBe(false);
    }
    expect(logs.length).toBeGreaterThan(answers.length);
    expect(logs.filter((line) => secrets.some((secret) => line.includes(secret)))).toEqual([]);
  });

  it("in GraphiQL's page", () => {
    for (const { answers, secrets } of outcomes) {
      const page = answers.at(-1)!;
      expect(page.status).toBe(200);
      expect(page.text).toContain('<title>Company search</title>');
      for (const secret of secrets) expect(page.text.includes(secret)).toBe(false);
    }
  });

  it('in the printed configuration', () => {
    const config = readConfig({
      UPSTREAM_URL: 'http://127.0.0.1:4010',
      UPSTREAM_CLIENT_ID: 'gateway',
      UPSTREAM_CLIENT_SECRET: 'client-secret-0123456789',
      JWT_ISSUER: 'https://auth.example.com/',
      JWT_AUDIENCE: 'company-search',
      JWT_SECRET: 'jwt-secret-0123456789abcdef0123456789',
      GATEWAY_API_KEYS: 'web:api-key-0123456789abcdef0123456789abcdef',
      REDIS_URL: 'redis://gateway:redis-password-0123456789@redis.internal:6379/0',
    });
    const printed = JSON.stringify(describeConfig(config));
    for (const secret of [
      'client-secret-0123456789',
      'jwt-secret-0123456789abcdef0123456789',
      'api-key-0123456789abcdef0123456789abcdef',
      'redis-password-0123456789',
    ]) {
      expect(printed).not.toContain(secret);
    }
    expect(describeConfig(config)).toMatchObject({
      upstreamClientSecret: '[redacted]',
      jwtIssuer: 'https://auth.example.com/',
      jwtAudience: 'company-search',
      jwtSecret: '[redacted]',
      apiKeys: ['web'],
    });
  });
});
