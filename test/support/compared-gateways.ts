import { parse, print } from 'graphql';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { DEFAULT_COMPILE_AFTER } from '../../src/gateway/graphql/use-compiled-execution.js';
import { allFixtureCompanies } from '../../src/lookup-service/index.js';
import { send, type HttpAnswer, type HttpRequest } from './http.js';
import { startStack, type Stack } from './stack.js';

/** Both gateways' settings: every search reaches the upstream's window cache, not the answer cache, and no 429 part-way. */
const GATEWAY = { rateLimitPerMinute: 0, responseCache: false, cacheTtlMs: 1, cacheStaleWhileRevalidateMs: 0 };
/** Requests to the compiling gateway per case: the first ones run on graphql-js until the document is compiled. */
const SENDS = 4;
/** The upstream's retries are not waited out: a failing search is over at once, on both gateways alike. */
const RETRY_AT_ONCE = () => Promise.resolve();

// biome-ignore lint/suspicious/noExplicitAny: faults are written into results at any depth.
export type Json = Record<string, any>;
export type ResultsChange = (result: Json) => unknown;

export interface AnsweredBy {
  compiled: number;
  'graphql-js': number;
}

export interface WrittenBy {
  /** Answers the direct lane wrote itself. */
  direct: number;
  /** Results the direct lane executed and Yoga wrote. */
  yoga: number;
}

export interface Compared {
  text: string;
  /** How the compiling gateway answered, those of its sends it had compiled. */
  answeredBy: AnsweredBy;
  /** How the compiling gateway's direct lane answered, those of its sends it took. */
  writtenBy: WrittenBy;
}

export interface ComparedGateways {
  /** Compiles repeated queries, and answers JSON POSTs past Yoga's HTTP layer. */
  readonly compiled: Stack;
  /** graphql-js executes everything, and Yoga answers every request. */
  readonly reference: Stack;
  /**
   * Sends `request` to the reference gateway, then `sends` times (SENDS) to
   * the compiling one, with the upstream changed by `changes` on both; every
   * answer must be the reference's, byte for byte, with the same status and headers.
   */
  expectSameAnswers(request: HttpRequest, changes?: Record<string, ResultsChange>, sends?: number): Promise<Compared>;
}

/**
 * Starts, for the test file calling it, two stacks over the same fixtures:
 * one gateway compiling repeated queries and answering JSON POSTs through its
 * direct lane, one executing everything with graphql-js inside Yoga, to
 * compare their answers.
 */
export function comparedGateways(): ComparedGateways {
  const answeredBy: AnsweredBy = { compiled: 0, 'graphql-js': 0 };
  const writtenBy: WrittenBy = { direct: 0, yoga: 0 };
  let compiled: Stack | undefined;
  let reference: Stack | undefined;
  /** A clock of the gateways' own (fetchedAt, staleness) that moves only between cases, so both answer at the same instant. */
  let now = Date.UTC(2026, 0, 1);

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'], now });
    [compiled, reference] = await Promise.all([
      startStack({
        lookup: { companies: allFixtureCompanies },
        gateway: GATEWAY,
        sleep: RETRY_AT_ONCE,
        compiledExecution: { observe: (by) => (answeredBy[by] += 1) },
        directAnswers: { observe: (by) => (writtenBy[by] += 1) },
      }),
      startStack({
        lookup: { companies: allFixtureCompanies },
        gateway: GATEWAY,
        sleep: RETRY_AT_ONCE,
        compiledExecution: false,
        directAnswers: false,
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([compiled?.close(), reference?.close()]);
    vi.useRealTimers();
  });

  return {
    get compiled() {
      return compiled!;
    },
    get reference() {
      return reference!;
    },
    async expectSameAnswers(sent, changes = {}, sends = SENDS) {
      // One request id for both, which errors carry in extensions.requestId.
      const request = { ...sent, headers: { 'x-request-id': 'compared', ...sent.headers } };
      now += 1_000;
      vi.setSystemTime(now);
      for (const stack of [compiled!, reference!]) {
        stack.lookup.knobs.mapResults = (results) =>
          results.map((result) => changes[result.companyNumber]?.(structuredClone(result) as unknown as Json) ?? result);
      }
      const expected = await send(reference!.gateway.url, { path: '/graphql', ...request });
      answeredBy.compiled = 0;
      answeredBy['graphql-js'] = 0;
      writtenBy.direct = 0;
      writtenBy.yoga = 0;
      for (let sent = 0; sent < sends; sent++) {
        const answer = await send(compiled!.gateway.url, { path: '/graphql', ...request });
        expect(comparable(answer)).toEqual(comparable(expected));
      }
      // An answer without errors never needs graphql-js to run again.
      if (!expected.text.includes('"errors"')) expect(answeredBy['graphql-js']).toBe(0);
      // Nor Yoga to write it, where the direct lane takes the request.
      if (expected.status === 200 && !expected.text.includes('"errors"') && takenByDirectLane(request)) {
        expect(writtenBy).toEqual({ direct: sends, yoga: 0 });
      }
      return { text: expected.text, answeredBy: { ...answeredBy }, writtenBy: { ...writtenBy } };
    },
  };
}

/** What must be the same in two gateways' answers: status, every header but Date (the second it was sent) and body. */
export function comparable({ status, headers: { date: _date, ...headers }, text }: HttpAnswer) {
  return { status, headers, body: text };
}

/** A JSON POST asking for a JSON answer, as graphql/direct-answers.ts takes them. */
export function takenByDirectLane({ method, headers = {} }: HttpRequest): boolean {
  const accept = headers.accept ?? headers.Accept;
  const contentType = headers['content-type'] ?? headers['Content-Type'];
  return (
    method === 'POST' &&
    /^application\/(graphql-response\+)?json$/.test(accept ?? '') &&
    /^application\/(graphql\+)?json(;|$)/.test(contentType ?? '')
  );
}

/** A POST of `document` (parsed and printed when text) with `variables`. */
export function operation(document: Parameters<typeof print>[0] | string, variables: Json): HttpRequest {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: typeof document === 'string' ? print(parse(document)) : print(document), variables }),
  };
}

/** The sends after the first DEFAULT_COMPILE_AFTER (all of them when the document was compiled before) were answered compiled. */
export function expectCompiled({ answeredBy }: Compared): void {
  expect(answeredBy['graphql-js']).toBe(0);
  expect(answeredBy.compiled).toBeGreaterThanOrEqual(SENDS - DEFAULT_COMPILE_AFTER);
}

/** Every send the compiling gateway had compiled was discarded and run again by graphql-js, at least once. */
export function expectRunAgain({ answeredBy }: Compared): void {
  expect(answeredBy.compiled).toBe(0);
  expect(answeredBy['graphql-js']).toBeGreaterThanOrEqual(SENDS - DEFAULT_COMPILE_AFTER);
}

/** graphql-js answered every send: the operation is never compiled. */
export function expectNeverCompiled({ answeredBy }: Compared): void {
  expect(answeredBy).toEqual({ compiled: 0, 'graphql-js': 0 });
}
