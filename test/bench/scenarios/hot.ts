import { serverReadings, type BenchContext, type Server } from '../context.js';
import { send } from '../../support/http.js';
import { LoadClient, type LoadPlan, type LoadRequest } from '../load.js';
import { checkSearchAnswer, graphqlRequest, type Operation, withoutFetchedAt } from '../operations.js';
import { ratiosOfPairs, requestsPerSecond, runInterleaved, summarize, type Contender, type Summary } from '../rounds.js';

export interface HotSpec {
  id: string;
  title: string;
  operation: Operation;
  variables: Record<string, unknown>;
  /** Other variables for the very same data, which no cache keyed by the request can answer from the hot entry. */
  sameData: { label: string; variables: Record<string, unknown> }[];
}

export interface HotResult {
  spec: HotSpec;
  /** The gateway's first answer: what the stored-bytes server serves and every later answer must equal. */
  answer: Buffer;
  /** Writing the stored bytes and nothing else: the physical limit. */
  storedBytes: Summary;
  gateway: Summary;
  /** The plain Mercurius server, answering every request afresh: it has no cache of answers. */
  peer: Summary;
  /** With --baseline: that checkout's gateway, and the gateway's requests per second over its, round by round. */
  checkoutBaseline: { commit: string; summary: Summary; pairedRatios: number[] } | undefined;
}

/** The companies an answer holds, by jurisdiction and number, in order. */
function companiesOf(body: Buffer): string[] {
  const { data } = JSON.parse(body.toString('utf8')) as {
    data?: { searchCompanies?: { edges?: { node: Company }[]; nodes?: Company[] } };
  };
  const connection = data?.searchCompanies;
  const companies = connection?.nodes ?? connection?.edges?.map(({ node }) => node) ?? [];
  return companies.map(({ jurisdiction, companyNumber }) => `${jurisdiction ?? ''}:${companyNumber}`);
}

interface Company {
  jurisdiction?: string;
  companyNumber: string;
}

/**
 * One query over and over. The first answer is executed in full; the
 * stored-bytes server then serves its bytes, and every gateway answer must be
 * those bytes again, as must fresh executions over the same data afterwards.
 * The peer's answers must hold the same companies, each the same as its first
 * but for `fetchedAt`.
 */
export async function runHot(context: BenchContext, spec: HotSpec): Promise<HotResult> {
  const { checks, gateway, storedBytes, peer, checkoutBaseline, options } = context;
  const request = graphqlRequest('/graphql', spec.operation, spec.variables);
  const first = await send(gateway.url, request);
  const problem = checkSearchAnswer(first.status, first.body);
  if (!checks.record(`${spec.id}: first answer is 200 with results and no errors`, problem === undefined, problem)) {
    throw new Error(`${spec.id}: the gateway did not answer the hot query: ${problem}`);
  }
  const contentType = first.headers['content-type'];
  await storedBytes.child.call('answer', { body: first.body, contentType: typeof contentType === 'string' ? contentType : '' });
  const baselineFirst = checkoutBaseline && (await send(checkoutBaseline.url, request));
  if (baselineFirst) {
    checks.identical(
      `${spec.id}: the --baseline gateway's answer = the gateway's (fetchedAt aside)`,
      withoutFetchedAt(baselineFirst.body),
      withoutFetchedAt(first.body),
    );
  }
  const peerFirst = await send(peer.url, request);
  const peerProblem = checkSearchAnswer(peerFirst.status, peerFirst.body);
  checks.record(
    `${spec.id}: the peer's answer holds the gateway's companies, in its order`,
    peerProblem === undefined && companiesOf(peerFirst.body).join() === companiesOf(first.body).join(),
    peerProblem ?? `${companiesOf(peerFirst.body).length} companies, against the gateway's ${companiesOf(first.body).length}`,
  );

  const sameAs = (expected: Buffer, normalize: (body: Buffer) => Buffer) => (status: number, body: Buffer) =>
    status !== 200
      ? `status ${status}`
      : normalize(body).equals(normalize(expected))
        ? undefined
        : `answer differs from the first (${body.length} vs ${expected.length} bytes)`;
  const asIs = (body: Buffer) => body;
  const contender = (name: string, server: Server, check: LoadPlan['check']): Contender => ({
    name,
    client: new LoadClient(server.url, options.concurrency),
    plan: () => ({ next: (): LoadRequest => request, check }),
    ...serverReadings(server),
  });
  const baselineName = checkoutBaseline && `--baseline gateway (${checkoutBaseline.commit})`;
  const contenders = [
    contender('stored bytes', storedBytes, sameAs(first.body, asIs)),
    contender('gateway', gateway, sameAs(first.body, asIs)),
    ...(checkoutBaseline && baselineName && baselineFirst
      ? [contender(baselineName, checkoutBaseline, sameAs(baselineFirst.body, asIs))]
      : []),
    contender('peer', peer, sameAs(peerFirst.body, withoutFetchedAt)),
  ];
  try {
    const runs = await runInterleaved(contenders, options, context.machine);
    const summaryOf = (name: string): Summary => {
      const runsOf = runs.get(name);
      if (runsOf === undefined) throw new Error(`No rounds for ${name}`);
      const summary = summarize(runsOf);
      checks.record(
        `${spec.id}: every ${name} answer is 200 and ${name === 'peer' ? 'the same as its first but for fetchedAt' : 'byte-identical to the first'}`,
        summary.failures === 0,
        summary.failures === 0
          ? `${summary.requests} answers in measured rounds`
          : `${summary.failures} not: ${summary.failureSamples.join('; ')}`,
      );
      return summary;
    };
    const result: HotResult = {
      spec,
      answer: first.body,
      storedBytes: summaryOf('stored bytes'),
      gateway: summaryOf('gateway'),
      peer: summaryOf('peer'),
      checkoutBaseline:
        checkoutBaseline && baselineName
          ? {
              commit: checkoutBaseline.commit,
              summary: summaryOf(baselineName),
              pairedRatios: ratiosOfPairs(runs, 'gateway', baselineName, requestsPerSecond),
            }
          : undefined,
    };
    for (const { label, variables } of spec.sameData) {
      const fresh = await send(gateway.url, graphqlRequest('/graphql', spec.operation, variables));
      checks.identical(`${spec.id}: hot answer = fresh execution over the same data (${label})`, first.body, fresh.body);
    }
    return result;
  } finally {
    await Promise.all(contenders.map(({ client }) => client.close()));
  }
}
