import type { OperationTypeNode } from 'graphql';
import type { DataSource, ResponseNotes } from '../../schema/response-notes.js';
import type { ExecutionObserver } from '../graphql/server-context.js';

/** An answer that may be reused, and for how long: what its data is and until when it is fresh. */
export interface ReusableAnswer {
  /** Epoch ms; infinite when the answer used no upstream data. */
  freshUntil: number;
  sources: readonly DataSource[];
}

/**
 * What execution tells the response cache and the HTTP caches about one
 * request's answer: it may be reused only when exactly one query ran, without
 * errors, partial errors or warnings, and only while the data it used is fresh.
 */
export class ExecutionRecord implements ExecutionObserver {
  #executions = 0;
  #clean = true;
  #freshUntil = Number.POSITIVE_INFINITY;
  #sources: readonly DataSource[] = [];

  record(notes: ResponseNotes, hadErrors: boolean, operation: OperationTypeNode | undefined): void {
    this.#executions += 1;
    if (hadErrors || notes.errors.length > 0 || notes.warnings.length > 0 || operation !== 'query') this.#clean = false;
    this.#freshUntil = Math.min(this.#freshUntil, notes.freshUntil);
    this.#sources = notes.sources;
  }

  /** The answer's freshness and data, or undefined when it may not be reused. */
  reusable(): ReusableAnswer | undefined {
    return this.#executions === 1 && this.#clean ? { freshUntil: this.#freshUntil, sources: this.#sources } : undefined;
  }
}
