import { setMaxListeners } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { ExecutionResult } from 'graphql';
import { type GraphQLParams, isAsyncIterable } from 'graphql-yoga';
import { isBatchBody } from './batch-body.js';
import { isJsonContentType } from './use-json-body.js';
import type { GatewayServerContext, SettledResult } from './server-context.js';
import type { Gateway } from './yoga.js';

/** The answer types whose answers without errors are JSON text alone, as Yoga's regular result processor writes them. */
const PLAIN_ANSWER_TYPES = new Set(['application/graphql-response+json', 'application/json']);

/** What the direct lane made of a request. */
export type DirectOutcome =
  /** The whole answer, as Yoga would have written it. */
  | { status: 200; contentType: string; body: Buffer }
  /**
   * For Yoga to answer (see use-lane-handoff.ts), from the parameters read here: a result with errors or other HTTP
   * details to write without running it again, or, where an onParams hook refused them before anything ran, none.
   */
  | { params: GraphQLParams; settled?: SettledResult | undefined }
  /** Not taken: Yoga answers it from its body. */
  | undefined;

export interface DirectAnswersOptions {
  /** Told how each request the lane took was answered: by the lane alone, or written by Yoga. */
  observe?: ((answeredBy: 'direct' | 'yoga') => void) | undefined;
}

/**
 * Answers a single JSON POST through Yoga's own operation pipeline (every
 * onParams hook, parse, validate, context, execute and their plugins) but
 * without the Fetch API round trip around it: no whatwg-node Request built
 * from the Node request, no Response, no body stream, no promise chain per
 * hook. Measured on the cold search (test/bench), that round trip was about
 * 12 % of the gateway's CPU per request.
 *
 * An answer without errors is JSON text and its media type, which this lane
 * writes itself: the gateway's onResultProcess hooks touch only answers with
 * errors. Anything else is handed to Yoga with the parameters read here.
 *
 * Returns undefined for the requests it does not take: other methods,
 * bodies or answer types, batches, and bodies that are not a JSON object. The server does not use it where
 * tracing is on: the operation's span is Yoga's instrumentation of its own handling.
 */
export function createDirectAnswers(gateway: Gateway, { observe }: DirectAnswersOptions = {}) {
  return (
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer | undefined,
    serverContext: GatewayServerContext,
  ): Promise<DirectOutcome> | undefined => {
    const answerType = request.headers.accept;
    if (
      body === undefined ||
      request.method !== 'POST' ||
      answerType === undefined ||
      !PLAIN_ANSWER_TYPES.has(answerType) ||
      !isJsonContentType(request.headers['content-type'])
    ) {
      return undefined;
    }
    const params = jsonObjectOf(body);
    if (params === undefined) return undefined;
    return answer(gateway, new NodeRequestView(request, abortSignalOf(response)), params, serverContext, answerType, observe);
  };
}

async function answer(
  gateway: Gateway,
  request: NodeRequestView,
  params: GraphQLParams,
  serverContext: GatewayServerContext,
  answerType: string,
  observe: DirectAnswersOptions['observe'],
): Promise<DirectOutcome> {
  let result: Awaited<ReturnType<Gateway['getResultForParams']>>;
  try {
    // A view, not a Request: the gateway's hooks read a request's method, url, headers and signal, and nothing else.
    result = await gateway.getResultForParams({ params, request: request as unknown as Request }, serverContext);
  } catch {
    // An onParams hook refused the parameters before anything ran (execution's own errors come back as a result); Yoga makes that answer.
    return { params };
  }
  if (result === undefined || isAsyncIterable(result) || !isPlain(result)) {
    observe?.('yoga');
    return { params, settled: result };
  }
  observe?.('direct');
  return { status: 200, contentType: `${answerType}; charset=utf-8`, body: Buffer.from(JSON.stringify(result)) };
}

/** An answer Yoga would write as 200 and `JSON.stringify(result)`: no errors, no HTTP extensions, no serializer of its own. */
function isPlain(result: ExecutionResult & { stringify?: unknown }): boolean {
  return (result.errors?.length ?? 0) === 0 && result.extensions?.http === undefined && result.stringify === undefined;
}

/** The body as one operation's parameters, or undefined where Yoga's parser would refuse it or find a batch. */
function jsonObjectOf(body: Buffer): GraphQLParams | undefined {
  // A batch goes to Yoga, which parses it anyway: not parsed here first.
  if (isBatchBody(body)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as GraphQLParams) : undefined;
}

const ABORT = Symbol('abort controller');
type AbortableResponse = ServerResponse & { [ABORT]?: AbortController };

/** Aborted when the client goes before its answer is written, as whatwg-node aborts a Request's signal. */
function abortSignalOf(response: AbortableResponse): AbortSignal {
  const controller = new AbortController();
  // Each upstream wait listens on it (upstream/resilience/deadline.ts), one per alias of a search; past ten, Node would
  // warn of a leak on stderr for every such request. whatwg-node's signal has no limit either.
  setMaxListeners(0, controller.signal);
  response[ABORT] = controller;
  // One function for every response, rather than a closure for each; 'close' comes once, so on() spares once()'s wrapper.
  response.on('close', abortUnlessFinished);
  return controller.signal;
}

function abortUnlessFinished(this: AbortableResponse): void {
  if (!this.writableFinished) this[ABORT]?.abort();
}

/** The parts of a Fetch API Request the gateway's hooks read, over the Node request. */
class NodeRequestView {
  readonly method: string;
  readonly headers: NodeHeadersView;

  constructor(
    private readonly incoming: IncomingMessage,
    readonly signal: AbortSignal,
  ) {
    this.method = incoming.method ?? 'POST';
    this.headers = new NodeHeadersView(incoming.headers);
  }

  /** As whatwg-node builds it: the Host header and the target. */
  get url(): string {
    return `http://${this.incoming.headers.host ?? 'localhost'}${this.incoming.url ?? '/'}`;
  }
}

/** Fetch API Headers' `get` over Node's headers, whose names are already lower case: the one method a hook might read. */
class NodeHeadersView {
  constructor(private readonly headers: IncomingHttpHeaders) {}

  get(name: string): string | null {
    const value = this.headers[name.toLowerCase()];
    return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
  }
}
