import type { OperationTypeNode } from 'graphql';
import type { ResponseNotes } from '../../schema/response-notes.js';

/** Told how each operation of a request went; the response cache's ExecutionRecord decides from it whether the answer may be reused. */
export interface ExecutionObserver {
  record(notes: ResponseNotes, hadErrors: boolean, operation: OperationTypeNode | undefined): void;
}

/** What the request handler hands Yoga with each request. */
export interface GatewayServerContext {
  execution: ExecutionObserver;
  /** Given in `extensions.requestId` of every error. */
  requestId?: string | undefined;
}
