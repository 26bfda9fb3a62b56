import type { GraphQLError } from 'graphql';
import type { ResponseWarning } from '../errors/warnings.js';
import type { CompanyIdentity } from '../upstream/cache-tags.js';
import type { SearchQuery } from '../upstream/search-query.js';

/** Upstream data an answer shows: what was searched for, and the companies it shows of the results. */
export interface DataSource {
  query: SearchQuery;
  companies: readonly (CompanyIdentity | null)[];
}

/**
 * What resolvers note about the response while still returning data: partial
 * errors and warnings, which join the response's `errors` and
 * `extensions.warnings` once execution is done, and until when the upstream
 * data it is built from stays fresh, which bounds how long the serialized
 * answer may be reused.
 */
export class ResponseNotes {
  readonly errors: GraphQLError[] = [];
  readonly warnings: ResponseWarning[] = [];
  /** On the gateway's clock (upstream/resilience/clock.ts); no upstream data used yet means no bound from data. */
  freshUntil = Number.POSITIVE_INFINITY;
  readonly sources: DataSource[] = [];

  recordData(freshUntil: number, source: DataSource): void {
    this.freshUntil = Math.min(this.freshUntil, freshUntil);
    this.sources.push(source);
  }

  addError(error: GraphQLError): void {
    this.errors.push(error);
  }

  addWarning(warning: ResponseWarning): void {
    this.warnings.push(warning);
  }

  /** Forgets every error and warning noted and notes `error` alone: the answer they were for is refused as a whole. */
  refuse(error: GraphQLError): void {
    this.errors.splice(0, this.errors.length, error);
    this.warnings.length = 0;
  }

  /** How many errors and warnings are noted so far, to go back to with `rollback`. */
  checkpoint(): NotesCheckpoint {
    return { errors: this.errors.length, warnings: this.warnings.length };
  }

  /** Forgets the errors and warnings noted since `checkpoint`: for an execution that is discarded and run again. */
  rollback({ errors, warnings }: NotesCheckpoint): void {
    this.errors.length = errors;
    this.warnings.length = warnings;
  }
}

export interface NotesCheckpoint {
  readonly errors: number;
  readonly warnings: number;
}
