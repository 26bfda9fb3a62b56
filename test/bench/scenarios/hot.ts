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
  /** The gateway's first answer: what the baseline serves and every later answer must equal. */
  answer: Buffer;
  baseline: Summary;
  gateway: Summary;
}

/**
 * One query over and over. The first answer is executed in full; the
 * baseline then serves its bytes, and every gateway answer must be those
 * bytes again, as must fresh executions over the same data afterwards.
 */
export async function runHot(context: BenchContext, spec: HotSpec): Promise<HotResult> {
  const { checks, gateway, baseline, options } = context;
  const request = graphqlRequest('/graphql', spec.operation, spec.variables);
  const first = await send(gateway.url, request);
  const problem = checkSearchAnswer(first.status, first.body);
  if (!checks.record(`${spec.id}: first answer is 200 with results and no errors`, problem === undefined, problem)) {
    throw new Error(`${spec.id}: the gateway did not answer the hot query: ${problem}`);
  }
  const contentType = first.headers['content-type'];
  await baseline.child.call('answer', { body: first.body, contentType: typeof contentType === 'string' ? contentType : '' });

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
  const contenders = [contender('baseline', baseline, request), contender('gateway', gateway, request)];
  try {
    const runs = await runInterleaved(contenders, options, context.machine);
    const [baselineSummary, gatewaySummary] = contenders.map(({ name }) => {
      const summary = runs.get(name);
      if (summary === undefined) throw new Error(`No rounds for ${name}`);
      return summarize(summary);
    }) as [Summary, Summary];
    for (const [name, summary] of [
      ['baseline', baselineSummary],
      ['gateway', gatewaySummary],
    ] as const) {
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
    return { spec, answer: first.body, baseline: baselineSummary, gateway: gatewaySummary };
  } finally {
    await Promise.all(contenders.map(({ client }) => client.close()));
  }
}
