import type { ExecutionResult } from 'graphql';
import type { GraphQLParams } from 'graphql-yoga';
import type { ResponseNotes } from '../../schema/response-notes.js';

/** Told how each operation of a request went; the response cache's ExecutionRecord decides from it whether the answer may be reused. */
export interface ExecutionObserver {
  record(notes: ResponseNotes, hadErrors: boolean): void;
}

/** What the request handler hands Yoga with each request. */
export interface GatewayServerContext {
  execution: ExecutionObserver;
  /** Given in `extensions.requestId` of every error. */
  requestId?: string | undefined;
  /** The request's parameters, already read from its body by the direct lane (direct-answers.ts): Yoga does not read the body again. */
  params?: GraphQLParams | undefined;
  /** The request's result, already executed by the direct lane: Yoga only writes it. */
  settled?: SettledResult | undefined;
}

export type SettledResult = ExecutionResult | AsyncIterable<ExecutionResult>;
