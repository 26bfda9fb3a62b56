import type { ResponseNotes } from '../../schema/response-notes.js';
import type { ExecutionObserver } from '../graphql/server-context.js';

/**
 * What execution tells the response cache about one HTTP request's answer:
 * it may be reused only when exactly one operation ran, without errors,
 * partial errors or warnings, and only while the data it used is fresh.
 */
export class ExecutionRecord implements ExecutionObserver {
  #executions = 0;
  #clean = true;
  #freshUntil = Number.POSITIVE_INFINITY;

  record(notes: ResponseNotes, hadErrors: boolean): void {
    this.#executions += 1;
    if (hadErrors || notes.errors.length > 0 || notes.warnings.length > 0) this.#clean = false;
    this.#freshUntil = Math.min(this.#freshUntil, notes.freshUntil);
  }

  /** Epoch ms until which the answer may be reused, or undefined when it may not be. */
  reusableUntil(): number | undefined {
    return this.#executions === 1 && this.#clean ? this.#freshUntil : undefined;
  }
}
