import { cpuUs, type BenchContext } from '../context.js';
import { send } from '../../support/http.js';
import { LoadClient, type LoadRequest } from '../load.js';
import { checkSearchAnswer, graphqlRequest, type Operation } from '../operations.js';
import { runInterleaved, summarize, type Contender, type Summary } from '../rounds.js';

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
  /** The gateway's first answer: what the baselines serve and every later answer must equal. */
  answer: Buffer;
  /** Writing the stored bytes and nothing else: the physical limit. */
  storedBytes: Summary;
  /** The stored bytes with a production gateway's per-request work: the target's baseline. */
  production: Summary;
  gateway: Summary;
}

/**
 * One query over and over. The first answer is executed in full; the
 * baselines then serve its bytes, and every gateway answer must be those
 * bytes again, as must fresh executions over the same data afterwards.
 */
export async function runHot(context: BenchContext, spec: HotSpec): Promise<HotResult> {
  const { checks, gateway, storedBytes, productionBaseline, options } = context;
  const request = graphqlRequest('/graphql', spec.operation, spec.variables);
  const first = await send(gateway.url, request);
  const problem = checkSearchAnswer(first.status, first.body);
  if (!checks.record(`${spec.id}: first answer is 200 with results and no errors`, problem === undefined, problem)) {
    throw new Error(`${spec.id}: the gateway did not answer the hot query: ${problem}`);
  }
  const contentType = first.headers['content-type'];
  for (const baseline of [storedBytes, productionBaseline]) {
    await baseline.child.call('answer', { body: first.body, contentType: typeof contentType === 'string' ? contentType : '' });
  }

  const sameAsFirst = (status: number, body: Buffer) =>
    status !== 200
      ? `status ${status}`
      : body.equals(first.body)
        ? undefined
        : `answer differs from the first (${body.length} vs ${first.body.length} bytes)`;
  const contender = (name: string, server: typeof gateway, load: LoadRequest): Contender => ({
    name,
    client: new LoadClient(server.url, options.concurrency),
    plan: () => ({ next: () => load, check: sameAsFirst }),
    probes: { serverCpuUs: () => cpuUs(server) },
  });
  const contenders = [
    contender('stored bytes', storedBytes, request),
    contender('production baseline', productionBaseline, request),
    contender('gateway', gateway, request),
  ];
  try {
    const runs = await runInterleaved(contenders, options, context.machine);
    const summaries = contenders.map(({ name }) => {
      const summary = runs.get(name);
      if (summary === undefined) throw new Error(`No rounds for ${name}`);
      return [name, summarize(summary)] as const;
    });
    for (const [name, summary] of summaries) {
      checks.record(
        `${spec.id}: every ${name} answer is 200 and byte-identical to the first`,
        summary.failures === 0,
        summary.failures === 0
          ? `${summary.requests} answers in measured rounds`
          : `${summary.failures} not: ${summary.failureSamples.join('; ')}`,
      );
    }
    for (const { label, variables } of spec.sameData) {
      const fresh = await send(gateway.url, graphqlRequest('/graphql', spec.operation, variables));
      checks.identical(`${spec.id}: hot answer = fresh execution over the same data (${label})`, first.body, fresh.body);
    }
    const [storedBytesSummary, productionSummary, gatewaySummary] = summaries.map(([, summary]) => summary) as [Summary, Summary, Summary];
    return { spec, answer: first.body, storedBytes: storedBytesSummary, production: productionSummary, gateway: gatewaySummary };
  } finally {
    await Promise.all(contenders.map(({ client }) => client.close()));
  }
}
