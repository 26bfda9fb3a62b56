import type { GraphQLResolveInfo } from 'graphql';
import type { UpstreamClient } from '../upstream/client.js';
import type { Deadline } from '../upstream/resilience/deadline.js';
import type { ResponseNotes } from './response-notes.js';

/** What every resolver gets, one per request. */
export interface GatewayContext {
  upstream: UpstreamClient;
  limits: SearchLimits;
  /** When this request stops waiting for the upstream, and the signal that its client has gone. */
  deadline: Deadline;
  notes: ResponseNotes;
  /** Where tracing is on: runs a resolver's work in a span of its own. */
  traceResolver?: ResolverTracer;
}

export type ResolverTracer = <T>(info: GraphQLResolveInfo, args: Record<string, unknown>, resolve: () => Promise<T>) => Promise<T>;

export interface SearchLimits {
  /** Longest `q` accepted, in characters after trimming. */
  maxQueryLength: number;
}
